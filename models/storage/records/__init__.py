"""The records beside a checkpoint, one module a record (alignment, evaluation, heads, probe, training, the
timeline), each read strictly through :mod:`.strict`: a field unknown or missing is refused with the file's name."""
