# applications' launches of the tuned answers (the lookup path): bf16 nn and nt at 4096^3 and
# 2048^3 against torch, with aligned operands and with A one element off 16 bytes
import sys, torch, cutune
h = cutune.open(sys.argv[1])
torch.manual_seed(0)
for (M, N, K, layout) in [(4096, 4096, 4096, "nn"), (2048, 2048, 2048, "nn"), (2048, 2048, 2048, "nt"), (8192, 8192, 8192, "nn")]:
    for shift in (0, 1):
        buf = torch.randn(M * K + shift, device="cuda").to(torch.bfloat16)
        a = buf[shift:].view(M, K)
        if layout == "nn":
            b = torch.randn(K, N, device="cuda").to(torch.bfloat16)
        else:
            b = torch.randn(N, K, device="cuda").to(torch.bfloat16).t()
        size = "%dx%dx%d-bf16-%s" % (M, N, K, layout)
        try:
            r = h.lookup("matmul", size)
            c = h.matmul(a, b)
            torch.cuda.synchronize()
            ref = (a.double() @ b.double())
            err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
            print("%s A%s: %s %s, max rel err %.2e %s" % (size, "+2B" if shift else "", r.variant if r else "-", r.config_text if r else "", err, "ok" if err < 2e-2 else "WRONG"))
        except Exception as e:
            print("%s A%s: %s: %s" % (size, "+2B" if shift else "", type(e).__name__, e))
