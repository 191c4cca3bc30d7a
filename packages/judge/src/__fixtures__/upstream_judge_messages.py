"""Test harness: runs upstream's own judge code (judge/methods/*.py of an upstream checkout) on
trajectories and prints, as JSON, the message list each would send and the captioner requests it
made. `openai` is the stand-in of python-stubs/ (on PYTHONPATH); upstream's files are only imported.

usage: upstream_judge_messages.py <upstream checkout> <jobs.json>
jobs.json: [{"traj_dir": ..., "judge_type": ..., "sys_prompt_version": ..., "observation_type": ...}]
Each job runs on a fresh copy of its trajectory dir (upstream writes its caption caches there).
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, sys.argv[1])

import openai  # noqa: E402  (the stand-in)
from judge.methods.plain_judge import create_chat_messages_from_trajectory  # noqa: E402
from judge.methods.aer import create_aer_chat_messages_from_trajectory  # noqa: E402
from judge.methods.all_step_aer import create_all_step_aer_chat_messages_from_trajectory  # noqa: E402


def build(job, traj_dir, client):
    with open(os.path.join(traj_dir, 'better_log.json')) as handle:
        instruction = json.load(handle)['task']['instruction']
    judge_type = job['judge_type']
    version = job['sys_prompt_version']
    # As run_judge.py dispatches on the judge type.
    if judge_type in ('default', 'captioned_default', 'a11y_tree'):
        return create_chat_messages_from_trajectory(
            instruction=instruction,
            observation_type='a11y_tree' if judge_type == 'a11y_tree' else job['observation_type'],
            traj_dir=traj_dir,
            sys_prompt_version=version,
            client=client,
            use_caption=judge_type == 'captioned_default',
        )
    if judge_type == 'aer':
        return create_aer_chat_messages_from_trajectory(
            instruction=instruction, traj_dir=traj_dir, sys_prompt_version=version, client=client)
    return create_all_step_aer_chat_messages_from_trajectory(
        instruction=instruction, traj_dir=traj_dir, sys_prompt_version=version, client=client)


def main():
    with open(sys.argv[2]) as handle:
        jobs = json.load(handle)
    out = []
    # Upstream prints warnings to stdout: keep them off the JSON.
    result_stream, sys.stdout = sys.stdout, sys.stderr
    scratch = tempfile.mkdtemp(prefix='upstream-judge-')
    for index, job in enumerate(jobs):
        traj_dir = os.path.join(scratch, str(index))
        shutil.copytree(job['traj_dir'], traj_dir)
        openai.REQUESTS.clear()
        try:
            messages = build(job, traj_dir, openai.OpenAI())
            # messages_json: the text run_judge.py writes to {traj_dir}/messages.json.
            out.append({'messages': messages, 'captioner_requests': list(openai.REQUESTS),
                        'messages_json': json.dumps(messages, indent=2)})
        except Exception as error:  # upstream fails on this run: the test checks osharm refuses too
            out.append({'error': f'{type(error).__name__}: {error}'})
        shutil.rmtree(traj_dir)
    shutil.rmtree(scratch)
    json.dump(out, result_stream)


main()
