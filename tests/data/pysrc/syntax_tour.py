
import os, sys as s
from . import x
from ..a.b import (c as d, e,)
@dec(1)
async def f(a, /, b: int = 2, *args: str, c, d=3, **kw) -> None:
    """doc"""
    x = y = [1, 2.5, 3j, 0x_ff, *z]
    x += 1
    y: int = 5
    (z): int
    for i, (j, k) in enumerate(q): print(i, j, k, sep='')
    else: pass
    while not a and b or c: break
    with open(p) as fh, (g): await h
    with (open(p) as fh, open(q)): pass
    try: 1/0
    except (ValueError, TypeError) as e: raise X from e
    except Exception: ...
    finally: del x[1:2, ::3], y
    return {a: b for a, b in c.items() if a}, {1, 2}, {**d, 'k': v}, (x for x in y), [*a, *b]
class C(B, metaclass=M):
    global q
    v = f"{x!r:>{w}} {y=} {{}} {z:.3f}" 'and' f'''{a
      + b}'''
    l = lambda a, *, b=1: a if b else -a ** ~c
    w = x[1:, :2, ::-1, ...]
    t = 1,
    print(f(x for x in y))
    s = b'\\x00\\n' b"a"
match command.split():
    case [action]: pass
    case [Point(x=0, y=0), *rest] | {"k": 1, **kw} if rest: pass
    case -1 | 1+2j | None | "s" | a.b as c: pass
    case (x, y): pass
    case _: pass
# More corners: walrus, star targets, slices, decorators, lambdas, nested f-strings.
if (n := len(xs)) > 10 and not (a is not b) and c not in d:
    first, *rest = xs
    ys = xs[::2], xs[1:-1], xs[...], xs[i, j:k], xs[*idx]
    print(f"{n:>{width}.{prec}f} {x!r:^10} {'nested' + f'{y}'}", end="\n")
    g = (lambda *a, **k: (yield from a))
    s = {*a, *b}; d = {**x, 'k': 1, **y}
    z = -x ** -y, ~a // b % c @ d, a << 2 | b >> 1 ^ c & d
    assert isinstance(z, tuple), "z must be a tuple"
    del ys[0], d['k']
    global counter
    w = [i for i in range(3) if i for j in range(i)]
    v = {k: v for k, v in d.items()}
    u = await_ = 1
else:
    pass
class Model(nn.Module, metaclass=Meta, **opts):
    def forward(self, x: "Tensor") -> Tensor:
        return self.proj(x).transpose(1, 2).contiguous()
try:
    pass
except* (ValueError, TypeError) as eg:
    raise
