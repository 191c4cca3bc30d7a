# Stand-in for `google.api_core.exceptions`: upstream's agent only names these classes.
class InvalidArgument(Exception):
    pass


class ResourceExhausted(Exception):
    pass


class InternalServerError(Exception):
    pass


class BadRequest(Exception):
    pass
