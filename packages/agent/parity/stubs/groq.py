# Stand-in for `groq`: imported by upstream's agent module, never called by the parity runs.
class Groq:
    def __init__(self, *args, **kwargs):
        raise RuntimeError('groq is a stand-in in the parity harness')
