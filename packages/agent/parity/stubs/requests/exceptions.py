class SSLError(Exception):
    pass
