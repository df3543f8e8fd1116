"""Records of the contractions (minigrad/numpy/contractions.py) and einsum
(minigrad/numpy/einsum.py)."""

from __future__ import annotations

import numpy as np
from surface import Rec


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def subscripts(text, *shapes):
    """einsum's arguments: the subscripts (static) and normal operands."""
    return lambda rng, dt: (text, *normal(*shapes)(rng, dt))


def ints(*shapes):
    return lambda rng, dt: tuple(rng.integers(-4, 5, s).astype(dt) for s in shapes)


INTS = (np.dtype(np.int32), np.dtype(np.int64))

RECORDS = [
    Rec("matmul", normal((2, 3), (3, 4))),
    Rec("matmul", normal((5, 2, 3), (3,)), tag="batched-vector"),
    Rec("matmul", normal((3,), (2, 3, 4)), tag="vector-batched"),
    Rec("matmul", normal((2, 1, 3, 4), (5, 4, 2)), tag="broadcast"),
    Rec("matmul", normal((3,), (3,)), tag="vectors"),
    Rec("matmul", normal((0, 3), (3, 2)), tag="empty",
        edges=((np.zeros((2, 0)), np.ones((0, 3))),)),
    Rec("matmul", ints((2, 3), (3, 2)), dtypes=INTS, grad=False, tag="int"),
    Rec("dot", normal((3,), (3, 2))),
    Rec("dot", normal((2, 3, 4), (5, 4, 2)), tag="nd"),
    Rec("dot", normal((2, 3), ()), tag="scalar"),
    Rec("dot", normal((4,), (4,)), tag="vectors"),
    Rec("vdot", normal((2, 3), (2, 3))),
    Rec("vdot", normal((6,), (3, 2)), tag="reshaped"),
    Rec("inner", normal((2, 3), (4, 3))),
    Rec("inner", normal((3,), (3,)), tag="vectors"),
    Rec("inner", normal((2, 3), ()), tag="scalar"),
    Rec("outer", normal((3,), (4,))),
    Rec("outer", normal((2, 2), (3,)), tag="flattened"),
    Rec("tensordot", normal((2, 3, 4), (3, 4, 5))),
    Rec("tensordot", normal((2, 3), (4, 5)), kwargs={"axes": 0}, tag="axes0"),
    Rec("tensordot", normal((2, 3, 4), (4, 2)), kwargs={"axes": ([0, 2], [1, 0])},
        tag="pairs"),
    Rec("tensordot", normal((2, 3), (3, 5)), kwargs={"axes": (-1, 0)}, tag="ints"),
    Rec("vecdot", normal((2, 3), (3,))),
    Rec("vecdot", normal((3, 2), (3, 1)), kwargs={"axis": 0}, tag="axis0"),
    Rec("kron", normal((2, 3), (3, 2))),
    Rec("kron", normal((3,), (2, 2)), tag="ranks"),
    Rec("kron", normal((2, 1, 2), (2,)), tag="3d"),
    Rec("cross", normal((4, 3), (3,))),
    Rec("cross", normal((3, 2), (3, 2)), kwargs={"axisa": 0, "axisb": 0, "axisc": 1},
        tag="axes"),
    Rec("cross", normal((2, 3), (2, 3)), kwargs={"axis": 1}, tag="axis"),
    # einsum: the operands are traced, the subscripts static
    Rec("einsum", subscripts("ij,jk->ik", (2, 3), (3, 4)), static=(0,)),
    Rec("einsum", subscripts("ij,jk", (2, 3), (3, 4)), static=(0,), tag="implicit"),
    Rec("einsum", subscripts("ii->i", (3, 3)), static=(0,), tag="diagonal"),
    Rec("einsum", subscripts("ii", (3, 3)), static=(0,), tag="trace"),
    Rec("einsum", subscripts("iji->j", (3, 2, 3)), static=(0,), tag="repeated"),
    Rec("einsum", subscripts("ij->", (3, 2)), static=(0,), tag="sum"),
    Rec("einsum", subscripts("ij->ji", (3, 2)), static=(0,), tag="transpose"),
    Rec("einsum", subscripts("...ij,...jk->...ik", (2, 3, 4), (4, 5)), static=(0,),
        tag="ellipsis"),
    Rec("einsum", subscripts("bi,bj,bk->ijk", (4, 2), (4, 3), (4, 2)), static=(0,),
        tag="three"),
    Rec("einsum", subscripts("ab,bc,cd,de->ae", (2, 3), (3, 4), (4, 2), (2, 3)),
        static=(0,), tag="chain"),
    Rec("einsum", subscripts("ab,bc,cd,de,ef->af", (2, 3), (3, 4), (4, 2), (2, 3), (3, 2)),
        static=(0,), tag="greedy"),
    Rec("einsum", subscripts("ij,j->i", (3, 1), (4,)), static=(0,), tag="broadcast-1",
        jax=False, note="JAX refuses a size-1 axis against a larger one; NumPy broadcasts"),
    Rec("einsum", subscripts("i,i", (0,), (0,)), static=(0,), tag="empty"),
    Rec("einsum", subscripts("ij,jk->ik", (2, 3), (3, 4)), static=(0,),
        kwargs={"optimize": False}, tag="unoptimized"),
    Rec("einsum", lambda rng, dt: ("ij,jk->ik", rng.integers(-3, 4, (2, 3)).astype(dt),
                                   rng.integers(-3, 4, (3, 2)).astype(dt)),
        static=(0,), dtypes=INTS, grad=False, tag="int"),
]
