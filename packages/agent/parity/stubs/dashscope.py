# Stand-in for `dashscope`: imported by upstream's agent module, never called by the parity runs.
