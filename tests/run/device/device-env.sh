# Sourced by the device scripts (run.sh, multi/run.sh) from the checkout's root: d (build/device-megatron, which
# prepare.sh made and the run carried), the environment every device run uses (unbuffered Python; NVLink multicast
# off, as the device's KINDS.md asks), and the carried libraries unpacked where the bundled binary's RPATH looks.
d=$PWD/build/device-megatron
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$d/lib/libs.tar.xz" "$d/lib"
