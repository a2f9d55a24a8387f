# The compiled half of the package; use the functions of `divload` instead.
from typing import Any, Dict, Optional, Tuple

import numpy as np
import numpy.typing as npt

INVALID_INPUT: int
OVERFLOW: int
JSON: int
OUT_OF_MEMORY: int
PANIC: int

def plan_json(document: bytes) -> bytes: ...
def plan_shares(
    document: bytes,
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], Dict[str, Any]]: ...
def plan_chunks(
    document: bytes,
) -> Tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], Dict[str, Any]
]: ...
def models_json() -> bytes: ...
def example(model: str) -> str: ...
def scatter_counts(
    comm_per_item: npt.NDArray[np.float64],
    comp_per_item: npt.NDArray[np.float64],
    comm_latency: Optional[npt.NDArray[np.float64]],
    comp_latency: Optional[npt.NDArray[np.float64]],
    items: int,
    root: int,
    order: str,
    rounding: str,
    root_mode: str,
    out_counts: Optional[npt.NDArray[np.uint64]] = ...,
    out_displs: Optional[npt.NDArray[np.uint64]] = ...,
    out_finish: Optional[npt.NDArray[np.float64]] = ...,
) -> Tuple[Optional[npt.NDArray[np.int64]], Optional[npt.NDArray[np.int64]], Dict[str, Any]]: ...
def returns_counts(
    comm_per_item: npt.NDArray[np.float64],
    comp_per_item: npt.NDArray[np.float64],
    return_per_item: npt.NDArray[np.float64],
    items: int,
    schedule: str,
    port: str,
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], Dict[str, Any]]: ...
