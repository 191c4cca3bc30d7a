# Parity harness: runs upstream's own PromptAgent (from the checkout named by argv[1]) on the steps
# read from stdin and prints, as JSON, the request bodies its GPT path would POST. Upstream's files
# are imported, never edited; modules it imports that cannot be installed here are the stand-ins
# in ./stubs (put first on PYTHONPATH by the test).
import base64
import json
import os
import sys

checkout = sys.argv[1]
sys.path.insert(0, checkout)
os.environ.pop('CUSTOM_OPENAI_BASE_URL', None)
os.environ['OPENAI_API_KEY'] = 'parity-harness'

import requests  # noqa: E402  (the stand-in)
from mm_agents.agent import PromptAgent  # noqa: E402

spec = json.load(sys.stdin)
agent = PromptAgent(
    platform='ubuntu',
    model=spec['model'],
    max_tokens=spec['max_tokens'],
    top_p=spec['top_p'],
    temperature=spec['temperature'],
    action_space=spec['action_space'],
    observation_type=spec['observation_type'],
    max_trajectory_length=spec['max_trajectory_length'],
    a11y_tree_max_tokens=spec['a11y_tree_max_tokens'],
)
agent.reset()
for step in spec['steps']:
    requests.REPLIES.append(step['response'])
    observation = {
        'screenshot': base64.b64decode(step['screenshot']),
        'accessibility_tree': step['accessibility_tree'],
    }
    agent.predict(spec['instruction'], observation)
json.dump([sent['json'] for sent in requests.SENT], sys.stdout, ensure_ascii=False)
