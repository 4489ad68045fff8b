"""CosRec's forward pass in PyTorch, written as the reference code's
model.py writes it (zzxslp/CosRec: nn.Embedding, cnnBlock = 1x1 Conv2d,
BatchNorm2d, ReLU, valid 3x3 Conv2d, BatchNorm2d, ReLU; AdaptiveAvgPool2d;
fc1 with tanh; dropout; concat with the user embedding; W2/b2 scores),
with weights given by the Go test. Reads JSON on stdin, writes the scores
in eval mode (running statistics) and in train mode (batch statistics,
dropout 0) as JSON on stdout."""
import json
import sys

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, kernel_size=1)
        self.conv2 = nn.Conv2d(cout, cout, kernel_size=3, stride=1)
        self.bn1 = nn.BatchNorm2d(cout)
        self.bn2 = nn.BatchNorm2d(cout)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(x)))


def main():
    cfg = json.load(sys.stdin)
    L, d = cfg["l"], cfg["d"]
    t = lambda v, shape: torch.tensor(v, dtype=torch.float32).reshape(shape)
    blocks = []
    cin = 2 * d
    for b in cfg["blocks"]:
        blk = Block(cin, b["width"])
        with torch.no_grad():
            for conv, w, bias in ((blk.conv1, b["w1"], b["b1"]), (blk.conv2, b["w3"], b["b3"])):
                conv.weight.copy_(t(w, conv.weight.shape))
                conv.bias.copy_(t(bias, conv.bias.shape))
            for bn, p in ((blk.bn1, b["bn1"]), (blk.bn2, b["bn3"])):
                bn.weight.copy_(t(p[0], (-1,)))
                bn.bias.copy_(t(p[1], (-1,)))
                bn.running_mean.copy_(t(p[2], (-1,)))
                bn.running_var.copy_(t(p[3], (-1,)))
        blocks.append(blk)
        cin = b["width"]
    fc = nn.Linear(cin, cfg["fc"])
    with torch.no_grad():
        fc.weight.copy_(t(cfg["fc_w"], fc.weight.shape))
        fc.bias.copy_(t(cfg["fc_b"], fc.bias.shape))
    item = t(cfg["item"], (-1, d))
    user = t(cfg["user"], (-1, d))
    W2 = t(cfg["out_w"], (item.shape[0], -1))
    b2 = t(cfg["out_b"], (-1, 1))
    seq = torch.tensor(cfg["seq"]).reshape(-1, L)
    users = torch.tensor(cfg["users"])
    cands = torch.tensor(cfg["cands"]).reshape(seq.shape[0], -1)
    dropout = nn.Dropout(0.0)

    def forward():
        mb = seq.shape[0]
        item_embs = item[seq]                                     # (b, L, d)
        user_emb = user[users]                                    # (b, d)
        item_i = item_embs.unsqueeze(1).repeat(1, L, 1, 1)         # (b, L, L, d)
        item_j = item_embs.unsqueeze(2).repeat(1, 1, L, 1)
        out = torch.cat([item_i, item_j], 3).permute(0, 3, 1, 2)  # (b, 2d, L, L)
        for blk in blocks:
            out = blk(out)
        out = nn.AdaptiveAvgPool2d((1, 1))(out).reshape(mb, -1)
        out = dropout(torch.tanh(fc(out)))
        x = torch.cat([out, user_emb], 1)
        w2 = W2[cands]                                            # (b, c, fc+d)
        b2c = b2[cands]                                           # (b, c, 1)
        return torch.baddbmm(b2c, w2, x.unsqueeze(2)).squeeze(2)

    with torch.no_grad():
        for blk in blocks:
            blk.eval()
        ev = forward()
        for blk in blocks:
            blk.train()
        tr = forward()
    json.dump({"eval": ev.flatten().tolist(), "train": tr.flatten().tolist()}, sys.stdout)


if __name__ == "__main__":
    main()
