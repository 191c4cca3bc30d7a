# Crafted strings for the reader's tests (this project's own text, not upstream's).
PLAIN = "tab\there, newline\n, quote \" and \\ backslash"
RAW = r"raw \n stays, \" too"
TRIPLE = """
  First line
  second line with 'single' and "double" quotes \
continued
"""
STRIPPED = """

  padded both sides  \t
""".strip()
PARENS = (
    "one "  # a comment between parts
    'two '
    """three"""
)
ESCAPES = "\x41\u00e9\U0001F600\101\0end\a\b\f\v\r"
UNKNOWN_ESCAPE = "keep \d and \q"
UNICODE = "naïve café — ✓"
ANNOTATED: str = "annotated"
BRACES = "{} and {name} and {{literal}}"
REBOUND = "first"
REBOUND = "second"
CRLF_CONT = "a\
b"


def greet(name, mood=None, count=3, label='x', flag=True, neg=-2):
    message = f"""Hello {name}!{' (quiet)' if mood == 'quiet' else ''}
Mood: {mood} {{not a field}} {"yes" if flag else "no"}"""
    return message


def table():
    rows = {
        "a": "alpha",  # comment
        'b': 'be' "ta",
        "c": f"gamma",
    }
    return rows


def computed(a):
    return f"{a + 1}"


class Holder:
    def method(self, x):
        return f"x={x}"
