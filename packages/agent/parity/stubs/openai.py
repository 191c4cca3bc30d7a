# Stand-in for `openai`: upstream's agent only names its error classes (its GPT path posts with requests).
class RateLimitError(Exception):
    pass


class BadRequestError(Exception):
    pass


class InternalServerError(Exception):
    pass


class OpenAI:
    def __init__(self, *args, **kwargs):
        raise RuntimeError('openai is a stand-in in the parity harness')
