"""Op records: the sample inputs of every base primitive, shared by the rule tests
(``test_primitives.py``) and the closure meta-test (``test_closure.py``).

The table itself lives in the package (``minigrad/testing/records.py``), where ``python -m
minigrad check`` reads it too; the draws and the ``OpRecord`` class are in
``minigrad/testing/samples.py``.
``CASES`` expands every record into one ``minigrad.testing.Sample`` per dtype. Adding an op
means adding a record there, not writing a test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from minigrad.core import Primitive
from minigrad.testing import Sample
from minigrad.testing.records import RECORDS
from minigrad.testing.samples import OpRecord


@dataclass
class Case:
    """A record at one dtype: what the parametrized tests iterate over."""

    record: OpRecord
    dtype: np.dtype
    sample: Sample

    @property
    def prim(self) -> Primitive:
        return self.record.prim

    @property
    def id(self) -> str:
        return self.sample.name


CASES: list[Case] = [Case(r, dt, r.sample(dt)) for r in RECORDS for dt in r.dtypes]

__all__ = ["CASES", "Case"]
