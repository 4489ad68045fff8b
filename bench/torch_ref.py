#!/usr/bin/python3
"""PyTorch reference worker for contactmap's `make bench`.

It builds the same network as pipeline/train (model.go) from the
architecture record the Go harness passes as JSON, on synthetic inputs of
the same shapes, and times one task per "run" line read from stdin:

  train   forward + weighted BCE + backward + Adam (L2 1e-5), batch B, length L
  infer   forward in eval mode under torch.inference_mode, then sigmoid
  rna-train, rna-infer  the same for the network --spec describes
          (pairnet.Spec: the RNA networks), with --lr, --l2, --pos-weight
  rec-train  a CosRec or SCosRec step (--rec: rec.Config): --targets and
          --negatives candidates per user, CosRec's loss, Adam
  conv    one k x k convolution Cin -> Cout, forward + backward
  sgemm   C (M x N) = A (M x K) B (K x N) with torch.mm

Protocol (one JSON object per output line):
  start -> {"ready": true, "params": trainable, "rss_start": bytes}
  "run" -> {"seconds": s}; "run N" -> the mean of N runs back to back
  "mem" -> {"peak_rss": bytes}      (VmHWM of this process)
  EOF   -> exit

The SCNN is written the way a PyTorch user would: spConv kernels are
gathered from the free parameters R[a >= b] each step and applied by an
ordinary (full-map) convolution; the 1x1 sgConv is the outer sum
y[i,j] = A[i] + A[j] + b, A = x S. Trainable parameter counts equal the
Go model's (the LSTM's second bias vector, b_hh, is frozen at zero because
the Go LSTM has one bias per gate).
"""

import argparse
import json
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def status_bytes(field):
    """A "Vm...:  N kB" line of /proc/self/status, in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def self_cartesian(x):
    """(B, L, n) -> (B, 2n, L, L) with y[:, :, i, j] = [x_i, x_j]."""
    b, l, n = x.shape
    xi = x.transpose(1, 2).unsqueeze(3).expand(b, n, l, l)
    xj = x.transpose(1, 2).unsqueeze(2).expand(b, n, l, l)
    return torch.cat([xi, xj], dim=1)


class OuterSum(nn.Module):
    """1x1 sgConv on a self-Cartesian product: y[i,j] = A[i] + A[j] + b."""

    def __init__(self, n, f):
        super().__init__()
        self.lin = nn.Linear(n, f, bias=False)
        self.bias = nn.Parameter(torch.zeros(f))

    def forward(self, x):
        a = self.lin(x).transpose(1, 2)  # (B, F, L)
        return a.unsqueeze(3) + a.unsqueeze(2) + self.bias.view(1, -1, 1, 1)


class SymConv(nn.Module):
    """spConv: kernel Q[a, b] = Q[b, a] = R[a >= b], applied in full
    (same padding, or none with valid=True)."""

    def __init__(self, k, cin, cout, valid=False):
        super().__init__()
        self.k = k
        self.pad = 0 if valid else k // 2
        t = k * (k + 1) // 2
        self.R = nn.Parameter(torch.empty(t, cout, cin))
        nn.init.uniform_(self.R, -0.05, 0.05)
        self.bias = nn.Parameter(torch.zeros(cout))
        idx = [max(a, b) * (max(a, b) + 1) // 2 + min(a, b) for a in range(k) for b in range(k)]
        self.register_buffer("idx", torch.tensor(idx))

    def forward(self, x):
        w = self.R[self.idx]  # (k*k, cout, cin)
        w = w.view(self.k, self.k, w.shape[1], w.shape[2]).permute(2, 3, 0, 1)
        return F.conv2d(x, w, self.bias, padding=self.pad)


def bilstm(n, h):
    """A BiLSTM with the Go LSTM's parameters: one bias per gate (b_hh
    frozen at zero)."""
    lstm = nn.LSTM(n, h, batch_first=True, bidirectional=True)
    for name, p in lstm.named_parameters():
        if name.startswith("bias_hh"):
            p.data.zero_()
            p.requires_grad_(False)
    return lstm


def make_conv(sym, k, cin, cout):
    if sym:
        return SymConv(k, cin, cout)
    return nn.Conv2d(cin, cout, k, padding=k // 2)


class Block(nn.Module):
    def __init__(self, sym, ks, cin, width):
        super().__init__()
        self.convs = nn.ModuleList([make_conv(sym, k, cin, width) for k in ks])
        self.bn = nn.BatchNorm2d(width * len(ks))

    def forward(self, x):
        ys = [c(x) for c in self.convs]
        y = ys[0] if len(ys) == 1 else torch.cat(ys, dim=1)
        return F.relu(self.bn(y))


def separation(l, n):
    i = torch.arange(l).view(-1, 1)
    d = (i - i.t()).abs().float()
    chans = [torch.log1p(d) / torch.log(torch.tensor(101.0)), (d < 6).float(), (d >= 24).float()]
    return torch.stack(chans[:n], dim=0)  # (n, L, L)


class ContactNet(nn.Module):
    def __init__(self, a):
        super().__init__()
        sym = a["kind"] == "scnn"
        self.sym = sym
        n1d, h = a["n1d"], a["lstm_hidden"]
        self.lstm = bilstm(n1d, h)
        self.dense = nn.Linear(2 * h, a["lstm_out"])
        n1 = n1d + a["lstm_out"]
        sep = a.get("sep_channels", 0)
        n2 = a["n2d"] + sep
        self.sep = sep
        if sym:
            self.sg1 = OuterSum(n1, 2 * n1)
            self.sg2 = OuterSum(n1d, 2 * n1d)
        self.pair_bn = nn.BatchNorm2d(2 * n1)
        cin = 2 * n1 + n2
        blocks = []
        for ks in a["blocks"]:
            blocks.append(Block(sym, ks, cin, a["width"]))
            cin = a["width"] * len(ks)
        self.blocks = nn.ModuleList(blocks)
        cin += 2 * n1d + n2
        head = []
        for k in a["head"][:-1]:
            head.append(Block(sym, [k], cin, a["head_width"]))
            cin = a["head_width"]
        self.head = nn.ModuleList(head)
        self.final = make_conv(sym, a["head"][-1], cin, 1)

    def pair(self, sg, x):
        if self.sym:
            return sg(x)
        return self_cartesian(x)

    def forward(self, x1, x2):
        h, _ = self.lstm(x1)
        x40 = torch.cat([x1, self.dense(h)], dim=2)
        p = self.pair_bn(self.pair(getattr(self, "sg1", None), x40))
        b, l = x1.shape[0], x1.shape[1]
        if self.sep:
            x2 = torch.cat([x2, separation(l, self.sep).unsqueeze(0).expand(b, -1, -1, -1)], dim=1)
        y = torch.cat([p, x2], dim=1)
        for blk in self.blocks:
            y = blk(y)
        re = torch.cat([self.pair(getattr(self, "sg2", None), x1), x2], dim=1)
        y = torch.cat([y, re], dim=1)
        for blk in self.head:
            y = blk(y)
        return self.final(y)


class PairNet(nn.Module):
    """Any pairnet.Spec (pairnet/spec.go), the RNA networks' description:
    BiLSTM and Dense (lstm_hidden > 0), the pair map (self-Cartesian
    product, or the SCNN's 1x1 sgConv to its width), optional batchnorm
    and ReLU, joined with the 2D input; blocks of parallel convolutions of
    their own widths, joined, batchnorm, ReLU; the re-injected map of the
    1D input (a product or sgConv, optional batchnorm and ReLU) joined
    with the last block's output and the 2D input; head blocks; the output
    convolution to one channel."""

    def __init__(self, s):
        super().__init__()
        sym = bool(s.get("symmetric"))
        self.sym = sym
        n1d, h = s["in_1d"], s.get("lstm_hidden", 0)
        self.lstm = None
        seq = n1d
        if h > 0:
            self.lstm = bilstm(n1d, h)
            self.dense = nn.Linear(2 * h, s["lstm_out"])
            seq = n1d + s["lstm_out"]

        def map_width(m, n):
            w = (m or {}).get("width", 0)
            return w if sym and w > 0 else 2 * n

        def pair_map(m, n):
            mods = nn.ModuleDict()
            w = map_width(m, n)
            if sym:
                mods["sg"] = OuterSum(n, w)
            if m.get("bn"):
                mods["bn"] = nn.BatchNorm2d(w)
            return mods, w, bool(m.get("relu"))

        self.pair, pw, self.pair_relu = pair_map(s.get("pair") or {}, seq)
        n2 = s.get("in_2d", 0)
        cin = pw + n2

        def block(b, cin):
            convs = nn.ModuleList([make_conv(sym, k, cin, w) for k, w in zip(b["kernels"], b["widths"])])
            return nn.ModuleDict({"convs": convs, "bn": nn.BatchNorm2d(sum(b["widths"]))}), sum(b["widths"])

        self.blocks = nn.ModuleList()
        for b in s.get("blocks") or []:
            m, cin = block(b, cin)
            self.blocks.append(m)
        self.re = None
        if s.get("reinject") is not None:
            self.re, rw, self.re_relu = pair_map(s["reinject"], n1d)
            cin += rw + n2
        self.head = nn.ModuleList()
        for b in s.get("head") or []:
            m, cin = block(b, cin)
            self.head.append(m)
        self.final = make_conv(sym, s["out_kernel"], cin, 1)

    def make_map(self, mods, relu, x):
        y = mods["sg"](x) if "sg" in mods else self_cartesian(x)
        if "bn" in mods:
            y = mods["bn"](y)
        return F.relu(y) if relu else y

    @staticmethod
    def run_block(m, x):
        ys = [c(x) for c in m["convs"]]
        y = ys[0] if len(ys) == 1 else torch.cat(ys, dim=1)
        return F.relu(m["bn"](y))

    def forward(self, x1, x2):
        seq = x1
        if self.lstm is not None:
            h, _ = self.lstm(x1)
            seq = torch.cat([x1, self.dense(h)], dim=2)
        y = self.make_map(self.pair, self.pair_relu, seq)
        if x2 is not None:
            y = torch.cat([y, x2], dim=1)
        for m in self.blocks:
            y = self.run_block(m, y)
        if self.re is not None:
            parts = [y, self.make_map(self.re, self.re_relu, x1)]
            if x2 is not None:
                parts.append(x2)
            y = torch.cat(parts, dim=1)
        for m in self.head:
            y = self.run_block(m, y)
        return self.final(y)


class CosRec(nn.Module):
    """CosRec (Yan et al. 2019) as its reference code builds it, and
    SCosRec, its symmetric version as package rec builds it: the first
    block's 1x1 an sgConv on the item embeddings (an outer sum), the other
    convolutions spConvs. Embeddings of users, items, W2 and b2; blocks of
    a 1x1 and a valid 3x3 convolution, each with batchnorm and ReLU;
    average pooling; FC with tanh; dropout; scores W2[c] . [h, u] + b2[c]."""

    def __init__(self, c):
        super().__init__()
        sym = c["kind"] == "scosrec"
        d, fc = c["d"], c["fc"]
        self.L = c["l"]
        self.user = nn.Embedding(c["users"], d)
        self.item = nn.Embedding(c["items"] + 1, d)
        self.W2 = nn.Embedding(c["items"] + 1, fc + d)
        self.b2 = nn.Embedding(c["items"] + 1, 1)
        self.sym = sym
        self.blocks = nn.ModuleList()
        cin = 2 * d
        for i, w in enumerate(c["blocks"]):
            if not sym:
                c1, c3 = nn.Conv2d(cin, w, 1), nn.Conv2d(w, w, 3)
            elif i == 0:
                c1, c3 = OuterSum(d, w), SymConv(3, w, w, valid=True)
            else:
                c1, c3 = SymConv(1, cin, w), SymConv(3, w, w, valid=True)
            self.blocks.append(nn.ModuleDict({"c1": c1, "bn1": nn.BatchNorm2d(w), "c3": c3, "bn3": nn.BatchNorm2d(w)}))
            cin = w
        self.fc = nn.Linear(cin, fc)
        self.drop = nn.Dropout(c.get("dropout", 0.5))

    def forward(self, users, seq, cands):
        e = self.item(seq)  # (b, L, d)
        x = None
        for i, blk in enumerate(self.blocks):
            if i == 0:
                y = blk["c1"](e) if self.sym else blk["c1"](self_cartesian(e))
            else:
                y = blk["c1"](x)
            y = F.relu(blk["bn1"](y))
            x = F.relu(blk["bn3"](blk["c3"](y)))
        h = self.drop(torch.tanh(self.fc(x.mean(dim=(2, 3)))))
        h = torch.cat([h, self.user(users)], dim=1)
        return torch.baddbmm(self.b2(cands), self.W2(cands), h.unsqueeze(2)).squeeze(2)


def trainable(m):
    return sum(p.numel() for p in m.parameters() if p.requires_grad)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--task", required=True, choices=["train", "infer", "rna-train", "rna-infer", "rec-train", "conv", "sgemm"])
    ap.add_argument("--rec", help="CosRec configuration (rec.Config, JSON) for rec-train")
    ap.add_argument("--targets", type=int, default=3)
    ap.add_argument("--negatives", type=int, default=3)
    ap.add_argument("--arch", help="architecture record (JSON) for train and infer")
    ap.add_argument("--spec", help="network description (pairnet.Spec, JSON) for rna-train and rna-infer")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--l2", type=float, default=1e-5)
    ap.add_argument("--pos-weight", type=float, default=5.0)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--length", type=int, default=100)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--cin", type=int, default=64)
    ap.add_argument("--cout", type=int, default=64)
    ap.add_argument("--m", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rss_start = status_bytes("VmRSS")
    b, l = args.batch, args.length
    params = 0

    if args.task in ("train", "infer", "rna-train", "rna-infer"):
        if args.task.startswith("rna-"):
            s = json.loads(args.spec)
            model = PairNet(s)
            x1 = F.one_hot(torch.randint(0, 4, (b, l)), s["in_1d"]).float()
            x2 = None
            if s.get("in_2d", 0) > 0:
                x2 = (torch.rand(b, s["in_2d"], l, l) < 0.5).float()
                x2 = torch.triu(x2) + torch.triu(x2, diagonal=1).transpose(2, 3)
            rate, lr, l2, pw = 0.01, args.lr, args.l2, args.pos_weight
        else:
            a = json.loads(args.arch)
            model = ContactNet(a)
            x1 = torch.randn(b, l, a["n1d"])
            x2 = torch.randn(b, a["n2d"], l, l)
            x2 = (x2 + x2.transpose(2, 3)) / 2
            rate, lr, l2, pw = 0.1, 1e-3, 1e-5, 5.0
        params = trainable(model)
        labels = (torch.rand(b, 1, l, l) < rate).float()
        labels = torch.maximum(labels, labels.transpose(2, 3))
        upper = torch.triu(torch.ones(l, l), diagonal=1).expand(b, 1, l, l)
        opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=l2)
        pos_weight = torch.tensor(pw)

        if args.task in ("train", "rna-train"):
            model.train()

            def run():
                opt.zero_grad(set_to_none=False)
                z = model(x1, x2)
                loss = F.binary_cross_entropy_with_logits(z, labels, weight=upper, pos_weight=pos_weight, reduction="sum") / upper.sum()
                loss.backward()
                opt.step()
        else:
            model.eval()

            def run():
                with torch.inference_mode():
                    torch.sigmoid(model(x1, x2))
    elif args.task == "rec-train":
        c = json.loads(args.rec)
        model = CosRec(c)
        params = trainable(model)
        t, n = args.targets, args.negatives
        users = torch.randint(0, c["users"], (b,))
        seq = torch.randint(1, c["items"] + 1, (b, c["l"]))
        cands = torch.randint(1, c["items"] + 1, (b, t + n))
        opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.l2)
        model.train()

        def run():
            opt.zero_grad(set_to_none=False)
            z = model(users, seq, cands)
            loss = F.softplus(-z[:, :t]).mean() + F.softplus(z[:, t:]).mean()
            loss.backward()
            opt.step()
    elif args.task == "conv":
        conv = nn.Conv2d(args.cin, args.cout, args.k, padding=args.k // 2)
        x = torch.randn(b, args.cin, l, l, requires_grad=True)
        dy = torch.randn(b, args.cout, l, l)

        def run():
            conv.zero_grad(set_to_none=False)
            x.grad = None
            y = conv(x)
            y.backward(dy)
    else:
        m = args.m or b * l * l
        A = torch.randn(m, args.k * args.k * args.cin)
        B = torch.randn(args.k * args.k * args.cin, args.cout)
        C = torch.empty(m, args.cout)

        def run():
            torch.mm(A, B, out=C)

    print(json.dumps({"ready": True, "params": params, "rss_start": rss_start, "version": torch.__version__}), flush=True)
    for line in sys.stdin:
        cmd, _, arg = line.strip().partition(" ")
        if cmd == "run":
            try:
                n = int(arg) if arg else 1
            except ValueError:
                n = 0
            if not 1 <= n <= 1000:
                print(json.dumps({"error": "run %r: want a count of runs from 1 to 1000" % arg}), flush=True)
                continue
            t0 = time.perf_counter()
            for _ in range(n):
                run()
            print(json.dumps({"seconds": (time.perf_counter() - t0) / n}), flush=True)
        elif cmd == "mem":
            print(json.dumps({"peak_rss": status_bytes("VmHWM")}), flush=True)
        else:
            print(json.dumps({"error": "unknown command %r" % cmd}), flush=True)


if __name__ == "__main__":
    main()
