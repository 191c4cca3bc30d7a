# Stand-in for `backoff` (not installable here): the decorators leave the function as it is.
constant = object()


def on_exception(*_args, **_kwargs):
    return lambda function: function
