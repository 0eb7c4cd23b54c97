"""scripts/peers: peer tokenizers and PyTorch's SDPA on the inputs and shapes of build/benches."""
