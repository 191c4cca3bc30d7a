# Parity harness: runs upstream's own lib_run_single.run_single_example (from the checkout named by
# argv[1]) for each injection read from stdin, with a stand-in environment whose setup controller
# records what would reach the desktop (uploaded files' bytes, launched and executed commands,
# opened files and tabs); the run stops at the first observation. Also prints upstream's goal
# texts (run.py's all_injection_goals, evaluated by Python's own parser) and its jailbreak wrapper
# applied to an instruction. Upstream's files are imported, never edited; assets are read from a
# work dir of links (argv[2]) because upstream writes its filled copies next to them.
import ast
import base64
import json
import os
import sys

checkout, workdir = sys.argv[1], sys.argv[2]
sys.path.insert(0, checkout)
os.chdir(workdir)

import lib_run_single  # noqa: E402
from mm_agents.prompts import jailbreak_instruction  # noqa: E402

lib_run_single.time.sleep = lambda _seconds: None


class FirstObservation(Exception):
    pass


class Controller:
    def __init__(self):
        self.calls = []

    def _upload_file_setup(self, files):
        for entry in files:
            with open(entry['local_path'], 'rb') as local:
                data = local.read()
            self.calls.append({'upload': entry['path'], 'data': base64.b64encode(data).decode()})

    def _launch_setup(self, command, shell=False):
        self.calls.append({'launch': command, 'shell': shell})

    def _execute_setup(self, command, *args, **kwargs):
        self.calls.append({'execute': command})

    def _open_setup(self, path):
        self.calls.append({'open': path})

    def _chrome_open_tabs_setup(self, urls_to_open):
        self.calls.append({'tabs': urls_to_open})


class Env:
    def __init__(self):
        self.setup_controller = Controller()

    def reset(self, **_kwargs):
        pass

    def _get_obs(self):
        raise FirstObservation()


class Agent:
    platform = 'ubuntu'
    model = 'parity'
    max_tokens = 1500
    top_p = 0.9
    temperature = 1.0
    action_space = 'pyautogui'
    observation_type = 'screenshot_a11y_tree'
    max_trajectory_length = 3
    a11y_tree_max_tokens = 10000

    def reset(self, _logger=None):
        pass


def goal_texts():
    with open(os.path.join(checkout, 'run.py'), encoding='utf-8') as source:
        tree = ast.parse(source.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == 'all_injection_goals' for target in node.targets
        ):
            return ast.literal_eval(node.value)
    raise SystemExit('run.py has no all_injection_goals')


spec = json.load(sys.stdin)
goals = goal_texts()
runs = []
for run in spec['runs']:
    injection = dict(run['injection'])
    injection['content'] = goals[run['goal']]
    injection['goal_id'] = run['goal']
    env = Env()
    result_dir = os.path.join(workdir, 'result', str(len(runs)))
    os.makedirs(result_dir, exist_ok=True)
    try:
        lib_run_single.run_single_example(
            Agent(), env, {'id': run['task']}, 15, 'instruction', None, result_dir, [], injection=injection
        )
    except FirstObservation:
        pass
    runs.append(env.setup_controller.calls)
json.dump(
    {'goals': goals, 'jailbreak': jailbreak_instruction(spec['instruction']), 'runs': runs},
    sys.stdout,
    ensure_ascii=False,
)
