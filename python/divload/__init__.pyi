from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_Costs = Union[npt.ArrayLike, Sequence[float]]

class DivloadError(ValueError):
    message: str
    code: int
    def __init__(self, message: str, code: int) -> None: ...

class Scatter(NamedTuple):
    counts: npt.NDArray[np.int64]
    displacements: npt.NDArray[np.int64]
    summary: Dict[str, Any]

class Returns(NamedTuple):
    counts: npt.NDArray[np.int64]
    displacements: npt.NDArray[np.int64]
    summary: Dict[str, Any]

def scatter_counts(
    comm_per_item: _Costs,
    comp_per_item: _Costs,
    items: int,
    root: int = ...,
    order: str = ...,
    rounding: str = ...,
    root_mode: str = ...,
    comm_latency: Optional[_Costs] = ...,
    comp_latency: Optional[_Costs] = ...,
    out: Optional[Tuple[npt.NDArray[Any], ...]] = ...,
) -> Scatter: ...
def returns_counts(
    comm_per_item: _Costs,
    comp_per_item: _Costs,
    return_per_item: _Costs,
    items: int,
    schedule: str = ...,
    port: str = ...,
) -> Returns: ...
class Shares(NamedTuple):
    counts: npt.NDArray[np.int64]
    displacements: npt.NDArray[np.int64]
    positions: npt.NDArray[np.int64]
    summary: Dict[str, Any]

class Chunks(NamedTuple):
    ranks: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]
    displacements: npt.NDArray[np.int64]
    times: npt.NDArray[np.float64]
    summary: Dict[str, Any]

def chunks(document: Union[Dict[str, Any], str, bytes]) -> Chunks: ...
def plan(document: Union[Dict[str, Any], str, bytes]) -> Dict[str, Any]: ...
def shares(document: Union[Dict[str, Any], str, bytes]) -> Shares: ...
def models() -> List[Dict[str, str]]: ...
def example(model: str) -> Dict[str, Any]: ...
