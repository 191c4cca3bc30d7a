# Stand-in for `google.generativeai`: imported by upstream's agent module, never called here.
