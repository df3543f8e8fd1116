"""``python -m minigrad``: the command line, a thin dispatcher.

* ``check [--module M] [OP ...]``: every rule check of every primitive over its samples, or of
  those a user's module ``M`` registers (``minigrad.testing.register``) (``minigrad.tools.check``);
* ``explain [--module M] OP``: an op's semantics and the jaxprs of its rules
  (``minigrad.tools.explain``);
* ``crosscheck --against torch|jax``: the five ops against another framework
  (``minigrad.tools.crosscheck``);
* ``vectors --out DIR`` / ``--verify DIR``: golden test vectors (``minigrad.tools.vectors``);
* ``demo``: per-example gradients through index_add.

Bad input (an unknown op or framework, an unwritable directory, corrupt vectors) is one line on
stderr and exit status 2; a failed check is exit status 1. The command modules are imported
when their command runs, so ``--help`` stays instant and torch or jax only load for a
cross-check.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, NoReturn, Sequence

import numpy as np

from minigrad.tools.errors import UsageError

PROG = "minigrad"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not argparse's usage block
        raise UsageError(f"{message} (see {self.prog} --help)")


def demo() -> int:
    import minigrad as mg
    from minigrad import numpy as mnp

    def loss(x: np.ndarray, index: np.ndarray, source: np.ndarray) -> np.ndarray:
        return mnp.sum(mnp.tanh(mg.index_add(x, 0, index, source)) ** 2)

    x = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    source = np.ones((2, 3))
    indices = np.array([[0, 0], [1, 3], [2, 2]])
    per_example = mg.vmap(mg.grad(loss), in_axes=(None, 0, None))(x, indices, source)
    looped = np.stack([mg.grad(loss)(x, i, source) for i in indices])
    print("minigrad: per-example gradients of a loss through index_add")
    print(mg.make_jaxpr(mg.vmap(mg.grad(loss), in_axes=(None, 0, None)))(x, indices, source))
    print(f"vmap(grad) == loop of grad: {np.allclose(per_example, looped)}")
    return 0 if np.allclose(per_example, looped) else 1


def _seed(text: str) -> int:
    """``--seed``: a non-negative int (NumPy's generators reject negative seeds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative int; got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="minigrad: JAX-style autodiff and vmap in pure "
                     "NumPy. Commands check every rule of every primitive, explain an op's "
                     "rules, cross-check the five indexing ops against PyTorch or JAX, and "
                     "write golden test vectors.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("check", help="run every rule check of every primitive (or those named)",
                       description="Check every rule of every primitive (or of those named) "
                       "over its samples: impl against a loop reference, shape rule against "
                       "impl, JVP against finite differences, transpose by the dot-product "
                       "test, batching against a loop for every batched combination, "
                       "vmap(grad) against a loop of grad, grad of grad, and each of these "
                       "staged with make_jaxpr and typechecked. Exit 1 on a failure.")
    p.add_argument("ops", nargs="*", metavar="OP", help="primitive names (default: all)")
    p.add_argument("--module", metavar="MODULE",
                   help="import MODULE and check the primitives it registers with "
                   "minigrad.testing.register (default: minigrad's own)")
    p.add_argument("--seed", type=_seed, default=0, help="first seed of the draws (default 0)")
    p.add_argument("--examples", type=int, default=1, metavar="N",
                   help="independent draws of every sample (default 1)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")

    p = sub.add_parser("explain", help="an op's semantics and the jaxprs of its rules",
                       description="Print a primitive's semantics and the jaxprs of its JVP, "
                       "of its transpose (the linear part of the VJP) and of its batched form "
                       "on a sample input.")
    p.add_argument("op", metavar="OP", help="a primitive name, e.g. index_add or tanh")
    p.add_argument("--module", metavar="MODULE",
                   help="import MODULE first, for a primitive it registers")

    p = sub.add_parser("crosscheck", help="compare the five ops with PyTorch or JAX",
                       description="Compare forward values, reverse- and forward-mode "
                       "derivatives, jacfwd/jacrev, vmap and vmap(grad) of the five ops with "
                       "another framework on their samples. Mismatches are classified as "
                       "documented divergences or failures; exit 1 on a failure, 2 when the "
                       "framework is not installed.")
    p.add_argument("--against", required=True, metavar="FRAMEWORK", help="torch or jax")
    p.add_argument("ops", nargs="*", metavar="OP", help="ops among the five (default: all)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the draws (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the table")

    p = sub.add_parser("vectors", help="write or verify golden test vectors",
                       description="Write golden vectors of the five ops (inputs, outputs, VJPs "
                       "for fixed cotangents, JVPs for fixed tangents, per-example gradients for "
                       "every combination of batched arguments, each op's call in torch and jax, "
                       "the divergences that apply) "
                       "as .npz files plus manifest.json, byte-for-byte deterministic; or "
                       "verify a directory of them against this minigrad (exit 1 if anything "
                       "differs).")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--out", metavar="DIR", help="write the vectors into DIR")
    mode.add_argument("--verify", metavar="DIR", help="check the vectors in DIR")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the draws (default 0)")

    sub.add_parser("demo", help="per-example gradients through index_add, with the jaxpr")
    return parser


def _dispatch(args: Any) -> int:
    if args.command == "check":
        from minigrad.tools import check

        return check.main(args.ops, seed=args.seed, examples=args.examples, as_json=args.json,
                          module=args.module)
    if args.command == "explain":
        from minigrad.tools import explain

        return explain.main(args.op, module=args.module)
    if args.command == "crosscheck":
        from minigrad.tools import crosscheck

        return crosscheck.main(args.against, args.ops, seed=args.seed, as_json=args.json)
    if args.command == "vectors":
        from minigrad.tools import vectors

        if args.out is not None:
            return vectors.write_main(args.out, seed=args.seed)
        return vectors.verify_main(args.verify)
    return demo()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 a check failed, 2 bad input)."""
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
        if args.command is None:
            parser.print_help()
            return 0
        return _dispatch(args)
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # never a traceback for the user; MINIGRAD_TRACEBACK=1 shows it
        if os.environ.get("MINIGRAD_TRACEBACK"):
            raise
        print(f"{PROG}: internal error: {type(e).__name__}: {e} (set MINIGRAD_TRACEBACK=1 for "
              f"the traceback)", file=sys.stderr)
        return 2
