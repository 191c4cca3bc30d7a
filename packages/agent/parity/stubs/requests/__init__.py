# Stand-in for `requests`: records the JSON body upstream's GPT path would POST and answers it with
# the next scripted reply (the parity harness sets both). Nothing leaves the machine.
from . import exceptions  # noqa: F401

SENT = []
REPLIES = []


class _Response:
    status_code = 200

    def __init__(self, content):
        self._content = content
        self.text = content

    def json(self):
        return {
            'choices': [{'message': {'role': 'assistant', 'content': self._content}}],
            'usage': {'prompt_tokens': 0, 'completion_tokens': 0, 'total_tokens': 0},
        }


def post(url, headers=None, json=None, **_kwargs):
    import copy

    SENT.append({'url': url, 'json': copy.deepcopy(json)})
    return _Response(REPLIES.pop(0))
