"""bench/moe_groups.py: the uneven group bounds that bench/moe.py and
bench/rowskip_ab.py time grouped_matmul on (one definition for both)."""
import torch


def groups(T, G, pre=0, post=0, gen=None):
    """G uneven group sizes summing to T - pre - post, a few of them 0: the
    offsets [G + 1] (int32) of groups starting at row pre."""
    w = torch.rand(G, generator=gen) ** 2
    w[torch.randperm(G, generator=gen)[: max(1, G // 8)]] = 0
    n = (w / w.sum() * (T - pre - post)).floor().long()
    n[int(w.argmax())] += T - pre - post - int(n.sum())
    offs = torch.zeros(G + 1, dtype=torch.int64)
    offs[1:] = torch.cumsum(n, 0) + pre
    offs[0] = pre
    return offs.to(torch.int32)
