"""The one exception class of divload (imported by the compiled module to raise it)."""


class DivloadError(ValueError):
    """A document, cost or option divload cannot plan, or a plan it cannot make.

    ``message`` is divload's own message, naming the input and its valid range
    (``worker 3: comp_per_item must be finite and > 0, got NaN``); ``code`` is the stable
    number the C library returns for the same failure (``divload_status`` in
    ``divload.h``): 2 invalid input, 3 buffer too small, 4 overflow (more items than
    the arithmetic or MPI's ``int`` counts hold), 5 malformed document, 6 out of
    memory, 7 an internal error (a bug: please report it). The numbers are never reused.

    It is a ``ValueError``, so code that already catches those catches it too.
    """

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code

    def __reduce__(self):
        # Picklable with both arguments (mpi4py pickles exceptions between ranks).
        return (type(self), (self.message, self.code))

    def __repr__(self) -> str:
        return f"DivloadError({self.message!r}, code={self.code})"
