#!/usr/bin/env bash
# Runs of fault_job.py at once on one GPU, each a 4-rank torchrun job; every run's folder
# (job.out, flight-recorder dumps, marks, debug-server replies) is packed into
# $OUT/fault_runs_ROUND.tar.gz. RW_BACKEND=gloo tries the same runs on the CPU.
# usage: fault_runs.sh [round2|round3|round4|round5|round6|round7|round8|round9|round10|round11|round12|round13|round14]   (no argument: the third round's first five runs)
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/fault-runs-out}; work=${TMPDIR:-/tmp}/fault_runs; rm -rf "$work"; mkdir -p "$work" "$out"
nvidia-smi -L 2>&1 | head -2; python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
export NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_FR_BUFFER_SIZE=2000
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
launch() {  # name master_port env...
  local name=$1 port=$2; shift 2; local d=$work/$name; mkdir -p "$d"
  ( cd "$d" && env "$@" RW_MARK="$d/mark.jsonl" TORCH_NCCL_DEBUG_INFO_TEMP_FILE="$d/fr_" \
      timeout "${LIMIT:-200}" python3 -m torch.distributed.run --nproc-per-node 4 --master-port "$port" \
      "$here/fault_job.py" > "$d/job.out" 2>&1; echo "torchrun exit $?" > "$d/exit.txt" ) &
}
launch2() {  # name master_port env...: two torchrun agents ("nodes" node0 and node1, each in
  # its own UTS namespace with that host name), two ranks each, static rendezvous
  local name=$1 port=$2; shift 2; local d=$work/$name; mkdir -p "$d"
  for k in 0 1; do
    ( cd "$d" && env "$@" RW_MARK="$d/mark.jsonl" TORCH_NCCL_DEBUG_INFO_TEMP_FILE="$d/fr_" \
        timeout "${LIMIT:-200}" unshare --uts bash -c "hostname node$k; exec python3 -m torch.distributed.run \
        --nnodes 2 --node-rank $k --nproc-per-node 2 --master-addr 127.0.0.1 --master-port $port \
        $here/fault_job.py" > "$d/node$k.out" 2>&1; echo "node$k torchrun exit $?" >> "$d/exit.txt" ) &
  done
}
start=$(date +%s.%N)
if [[ ${1:-} == round14 ]]; then  # (a run that does not end is stopped at 90 s)
  LIMIT=90
  launch scatter_size 29641 RW_FAULT=scatter_size RW_FAULT_RANK=1 RW_FAULT_STEP=40
  launch thread_exc 29642 RW_FAULT=thread_exc RW_FAULT_RANK=2 RW_FAULT_STEP=40
  launch ctrl_c 29643 RW_FAULT=ctrl_c RW_FAULT_RANK=0 RW_FAULT_STEP=200
  launch2 mn_scatter_size 29644 RW_FAULT=scatter_size RW_FAULT_RANK=3 RW_FAULT_STEP=60 NCCL_DEBUG=WARN
elif [[ ${1:-} == round13 ]]; then  # (a run that hangs is stopped at 100 s)
  LIMIT=100
  launch model_mismatch 29631 RW_FAULT=model_mismatch RW_FAULT_RANK=2
  launch master_port 29632 RW_FAULT=master_port RW_FAULT_RANK=3
  launch ckpt_dir 29633 RW_FAULT=ckpt_dir RW_FAULT_RANK=0 RW_FAULT_STEP=40
  launch2 mn_model_mismatch 29634 RW_FAULT=model_mismatch RW_FAULT_RANK=3 NCCL_DEBUG=WARN
elif [[ ${1:-} == round12 ]]; then  # (a run that hangs is stopped at 100 s)
  LIMIT=100
  launch gather_object 29621 RW_FAULT=gather_object RW_FAULT_RANK=2 RW_FAULT_STEP=40
  launch group_order 29622 RW_FAULT=group_order RW_FAULT_RANK=2 RW_FAULT_STEP=40 NCCL_DEBUG=WARN
  launch2 mn_destroy_pg 29623 RW_FAULT=destroy_pg RW_FAULT_RANK=3 RW_FAULT_STEP=60
  launch2 mn_dtype_desync 29624 RW_FAULT=dtype_desync RW_FAULT_RANK=1 RW_FAULT_STEP=60 NCCL_DEBUG=WARN
elif [[ ${1:-} == round11 ]]; then  # (a run that hangs is stopped at 100 s)
  LIMIT=100
  launch destroy_pg 29611 RW_FAULT=destroy_pg RW_FAULT_RANK=1 RW_FAULT_STEP=40
  launch world_mismatch 29612 RW_FAULT=world_mismatch RW_FAULT_RANK=3 NCCL_DEBUG=WARN
  launch dl_timeout 29613 RW_LOADER=1 RW_LOADER_TIMEOUT_S=5 RW_FAULT=dl_timeout RW_FAULT_RANK=2 RW_FAULT_STEP=40
elif [[ ${1:-} == round10 ]]; then  # (faults the rules had not met; a run that hangs is stopped at 110 s)
  LIMIT=110
  launch dtype_desync 29601 RW_FAULT=dtype_desync RW_FAULT_RANK=2 RW_FAULT_STEP=40 NCCL_DEBUG=WARN
  launch bcast_src 29602 RW_FAULT=bcast_src RW_FAULT_RANK=1 RW_FAULT_STEP=40
  launch unused_param 29603 RW_FAULT=unused_param RW_FAULT_RANK=2 RW_FAULT_STEP=40
  launch sigterm 29604 RW_FAULT=sigterm RW_FAULT_RANK=3 RW_FAULT_STEP=40
  launch wrong_device 29605 RW_FAULT=wrong_device RW_FAULT_RANK=1 RW_FAULT_STEP=40
  launch2 mn_unused_param 29606 RW_FAULT=unused_param RW_FAULT_RANK=3 RW_FAULT_STEP=60 NCCL_DEBUG=WARN
elif [[ ${1:-} == round9 ]]; then  # (start-up faults: a run that hangs is stopped at 100 s)
  LIMIT=100
  launch rank_ifname 29591 RW_FAULT=rank_ifname RW_FAULT_RANK=2 NCCL_DEBUG=WARN
  launch rank_no_gpu 29592 RW_FAULT=rank_no_gpu RW_FAULT_RANK=1
  launch nccl_proto 29593 NCCL_PROTO=bogus NCCL_DEBUG=WARN
  launch2 mn_rank_ifname 29594 RW_FAULT=rank_ifname RW_FAULT_RANK=3 NCCL_DEBUG=WARN
elif [[ ${1:-} == round8 ]]; then
  LIMIT=110
  launch2 mn_node_kill 29581 RW_FAULT=node_kill RW_FAULT_RANK=2 RW_FAULT_STEP=60 NCCL_DEBUG=WARN
  launch abort 29582 RW_FAULT=abort RW_FAULT_RANK=1 RW_FAULT_STEP=40
  launch exit_code 29583 RW_FAULT=exit_code RW_FAULT_RANK=2 RW_FAULT_STEP=40
  launch nan_loss 29584 RW_FAULT=nan_loss RW_FAULT_RANK=0 RW_FAULT_STEP=40
elif [[ ${1:-} == round7 ]]; then
  LIMIT=110
  launch dl_kill 29571 RW_LOADER=1 RW_FAULT=dl_kill RW_FAULT_RANK=1 RW_FAULT_STEP=40
  launch dl_error 29572 RW_LOADER=1 RW_FAULT=dl_error RW_FAULT_RANK=2 RW_FAULT_STEP=40
  launch ckpt_full 29573 RW_FAULT=ckpt_full RW_FAULT_RANK=0 RW_FAULT_STEP=40 NCCL_DEBUG=WARN
  launch slow_ckpt 29574 RW_FAULT=slow_ckpt RW_FAULT_RANK=0 RW_FAULT_STEP=40
  launch p2p_mismatch 29575 RW_FAULT=p2p_mismatch RW_FAULT_STEP=40 NCCL_DEBUG=WARN
  launch2 mn_dl_error 29576 RW_LOADER=1 RW_FAULT=dl_error RW_FAULT_RANK=3 RW_FAULT_STEP=60 NCCL_DEBUG=WARN
elif [[ ${1:-} == round6 ]]; then
  LIMIT=110
  launch gpu_hang_torchrun 29561 RW_FAULT=gpu_hang RW_FAULT_RANK=2 RW_FAULT_STEP=40 NCCL_DEBUG=WARN
  launch2 mn_subgroup_skip 29562 RW_FAULT=subgroup_skip RW_PAIRS=1 RW_FAULT_RANK=1 RW_FAULT_STEP=60
elif [[ ${1:-} == round5 ]]; then  # (a run that does not end is stopped at 110 s, as a time limit would)
  LIMIT=110
  launch segv 29551 RW_FAULT=segv RW_FAULT_RANK=1 RW_FAULT_STEP=40
  launch init_late 29552 RW_FAULT=init_late RW_FAULT_RANK=3 NCCL_DEBUG=INFO
  launch barrier_skip 29553 RW_FAULT=barrier_skip RW_FAULT_RANK=2 RW_FAULT_STEP=40 NCCL_DEBUG=WARN
  launch subgroup_skip 29554 RW_FAULT=subgroup_skip RW_PAIRS=1 RW_FAULT_RANK=3 RW_FAULT_STEP=40
  launch nan_check 29555 RW_FAULT=nan RW_FAULT_RANK=1 RW_FAULT_STEP=40 TORCH_NCCL_NAN_CHECK=1
  launch desync_debug 29556 RW_FAULT=hang RW_FAULT_RANK=2 RW_FAULT_STEP=40 TORCH_NCCL_DESYNC_DEBUG=1
  launch blocking_wait 29557 RW_FAULT=hang RW_FAULT_RANK=1 RW_FAULT_STEP=40 TORCH_NCCL_BLOCKING_WAIT=1
  launch no_async 29558 RW_FAULT=hang RW_FAULT_RANK=3 RW_FAULT_STEP=40 TORCH_NCCL_ASYNC_ERROR_HANDLING=0
elif [[ ${1:-} == round4 ]]; then  # (a run that does not fail is stopped at 90 s)
  LIMIT=90
  launch device_assert 29541 RW_FAULT=device_assert RW_FAULT_RANK=1 RW_FAULT_STEP=40
  launch cpu_tensor 29542 RW_FAULT=cpu_tensor RW_FAULT_RANK=2 RW_FAULT_STEP=40
  launch dup_gpu 29543 RW_SHARED_HOSTID=1 NCCL_DEBUG=WARN
  launch no_ifname 29544 NCCL_SOCKET_IFNAME=ib9 NCCL_DEBUG=WARN
elif [[ ${1:-} == round3 ]]; then
  launch2 mn_kill 29531 RW_FAULT=kill RW_FAULT_RANK=3 RW_FAULT_STEP=60 NCCL_DEBUG=WARN
  launch2 mn_raise 29532 RW_FAULT=raise RW_FAULT_RANK=2 RW_FAULT_STEP=60
  launch2 mn_hang 29533 RW_FAULT=hang RW_FAULT_RANK=1 RW_FAULT_STEP=60 NCCL_DEBUG=WARN
elif [[ ${1:-} == round2 ]]; then
  launch op_desync 29521 RW_FAULT=op_desync RW_FAULT_STEP=60 RW_FAULT_RANKS=2 NCCL_DEBUG=WARN
  launch op_split 29522 RW_FAULT=op_desync RW_FAULT_STEP=60 RW_FAULT_RANKS=2,3
  launch op_detail 29523 RW_FAULT=op_desync RW_FAULT_STEP=60 RW_FAULT_RANKS=2 TORCH_DISTRIBUTED_DEBUG=DETAIL
  launch exit_early_info 29524 RW_FAULT=exit_early NCCL_DEBUG=INFO
else
  launch desync 29511 RW_FAULT=op_desync RW_DEBUG_BASE_PORT=29700 TORCH_NCCL_ENABLE_TIMING=1 NCCL_DEBUG=INFO
  python3 "$here/fault_capture.py" "$work/desync/mark.jsonl" "$work/desync/debug" 4 29700 "$start" 14 10 25 \
    > "$work/desync/capture.txt" 2>&1 &
  launch raise 29512 RW_FAULT=raise RW_FAULT_RANK=3
  launch oom 29513 RW_FAULT=oom RW_FAULT_RANK=1
  launch kill 29514 RW_FAULT=kill NCCL_DEBUG=INFO
  launch exit_early 29515 RW_FAULT=exit_early NCCL_DEBUG=WARN
fi
wait
for d in "$work"/*/; do echo "== $d $(cat "$d/exit.txt" | tr '\n' ' ') $(cat "$d"/*.out | wc -l) lines; $(ls "$d" | tr '\n' ' ')"; done
tar -C "$work" -czf "$out/fault_runs_${1:-round1}.tar.gz" . && ls -l "$out"
