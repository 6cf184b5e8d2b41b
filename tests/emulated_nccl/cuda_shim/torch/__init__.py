"""Only a path: frames of `cuda_shim/torch/cuda` read like `torch/cuda/__init__.py` in py-spy."""
