"""Test stand-in for the `openai` package (not installable here): a client that records each
request instead of sending it and answers caption requests with a caption made from the image.

Only what upstream's judge code touches is provided: `OpenAI().chat.completions.create(**kwargs)`
returning an object with `.choices[0].message.content` and `.model_dump()`.
"""
import hashlib

REQUESTS = []


def caption_for(url):
    """The caption both sides give an image: derived from its data URL (osharm's test does the same)."""
    digest = hashlib.sha256(url.encode('utf-8')).hexdigest()
    return f"# Screen {digest[:12]}\n- window: {digest[12:24]}\n"


class _Message:
    def __init__(self, content):
        self.content = content


class _Choice:
    def __init__(self, content):
        self.message = _Message(content)
        self.finish_reason = 'stop'


class _Response:
    def __init__(self, model, content):
        self.model = model
        self.choices = [_Choice(content)]

    def model_dump(self):
        return {
            'model': self.model,
            'choices': [{'message': {'content': self.choices[0].message.content}, 'finish_reason': 'stop'}],
        }


class _Completions:
    def create(self, **kwargs):
        REQUESTS.append(kwargs)
        url = None
        for message in kwargs.get('messages', []):
            content = message.get('content')
            if isinstance(content, list):
                for part in content:
                    if part.get('type') == 'image_url':
                        url = part['image_url']['url']
        return _Response(kwargs.get('model'), caption_for(url or ''))


class _Chat:
    def __init__(self):
        self.completions = _Completions()


class OpenAI:
    def __init__(self, *args, **kwargs):
        self.chat = _Chat()
