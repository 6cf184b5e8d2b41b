"""What an error line that no pattern knows is about: a lexicon of failure families.

The pattern table (`monitor.parse.log_patterns`) reads the wordings it was written for, field
by field. A log from a project it never met still says what went wrong in words every stack
shares: "No space left on device", "out of memory", "No route to host", "Evicted". This module
reads those words in lines the table did not turn into events, so that such a log is judged by
its failure's family rather than called healthy. Pure: text in, families out.

Families are ordered by how directly they explain the others (a full disk or a lost GPU
explains the exceptions and broken connections after it, never the reverse); `PEER_LOST` and
`KILLED` only say that something failed, not what.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from monitor.model import Category


class Family(enum.IntEnum):
    """A failure family, in order of precedence (lowest value explains the others)."""

    OOM = 0
    GPU = 1
    # a node's clock out of step with the services that check it (a credential or a signed
    # request refused as expired or not yet valid): explains the storage and auth errors after
    CLOCK = 2
    STORAGE = 3
    INFRASTRUCTURE = 4
    NETWORK = 5
    INIT_TIMEOUT = 6
    ENVIRONMENT = 7  # a library or binary that cannot be loaded: the job's own setup
    SOFTWARE = 8
    DATA = 9  # an input file the job read is corrupt or cut short
    # a launcher that could not start the job's processes on its nodes, listing the causes it
    # may have (any other family's line explains it first)
    LAUNCH = 10
    PEER_LOST = 11  # a connection the other side dropped: whoever dropped it is the story
    KILLED = 12  # a process killed or crashed, with no cause given
    FAILED = 13  # an error, nothing more said


CATEGORY: dict[Family, Category] = {
    Family.OOM: Category.OOM,
    Family.GPU: Category.GPU_CUDA,
    Family.CLOCK: Category.CLOCK,
    Family.STORAGE: Category.STORAGE_IO,
    Family.DATA: Category.DATA,
    Family.LAUNCH: Category.INFRASTRUCTURE,
    Family.INFRASTRUCTURE: Category.INFRASTRUCTURE,
    Family.NETWORK: Category.NETWORK,
    Family.INIT_TIMEOUT: Category.INIT_TIMEOUT,
    Family.ENVIRONMENT: Category.SOFTWARE,
    Family.SOFTWARE: Category.SOFTWARE,
    Family.PEER_LOST: Category.UNDETERMINED,
    Family.KILLED: Category.UNDETERMINED,
    Family.FAILED: Category.UNDETERMINED,
}

# A family whose error belongs to the process that printed it: that process (its rank) is the
# culprit. A network error's reporter is one end of a link; a stop from outside has no culprit.
OWN_FAULT = frozenset({Family.OOM, Family.GPU, Family.STORAGE, Family.DATA,
                       Family.ENVIRONMENT, Family.SOFTWARE})

# An input the job read is corrupt or cut short, in its reader's own words: PIL's truncated or
# unreadable image, a zip archive (a torch checkpoint) without its directory, a pickle that is
# not one, zlib's and gzip's broken streams, TensorFlow's DataLossError on a record file
CORRUPT_DATA = re.compile(r"image file is truncated|cannot identify image file|"
                          r"failed finding central directory|invalid load key|"
                          # zipfile's reader (numpy's .npz, a zip of samples) on a file that is
                          # none, or a cut one: `zipfile.BadZipFile: File is not a zip file`
                          r"\bFile is not a zip file\b|\bBad magic number for central directory\b|"
                          r"Error -3 while decompressing|CRC check failed|"
                          r"Compressed file ended before the end-of-stream|\bDataLossError\b|"
                          r"corrupted record at|"
                          # torch.load's zip reader on a file whose records are broken
                          # (`PytorchStreamReader failed reading file data/3: invalid header or
                          # archive is corrupted`)
                          r"\binvalid header or archive is corrupted\b|"
                          # dmlc's RecordIO reader (MXNet): a record that is not one
                          r"\bInvalid RecordIO Format\b|RecordIOWriter::kMagic\b|"
                          # HDF5's file shorter than its superblock says (`truncated file: eof =
                          # 1073741824, sblock->base_addr = 0, stored_eof = 4294967296`)
                          r"\btruncated file: eof = \d+|"
                          # a chunk that will not decompress (zarr's and numcodecs' `error
                          # during blosc decompression: -1`)
                          r"\berror during \w+ decompression\b|"
                          # an image no decoder could read, in TensorFlow's, MindSpore's and
                          # MXNet's words (`Unknown image file format. One of JPEG, PNG, GIF,
                          # BMP required.`, `Decode: image decode failed.`, `Decoding failed.
                          # Invalid image file.`)
                          r"\bUnknown image file format\b|\bimage decode failed\b|"
                          r"\bDecoding failed\. Invalid image file\b|"
                          # Pillow's decoder on a stream cut or broken inside (`OSError: broken
                          # data stream when reading image file`, `OSError: Truncated File Read`)
                          r"\bbroken data stream when reading image file\b|"
                          r"\bOSError: Truncated File Read\b|^Truncated File Read$|"
                          # numpy's reader of a .npy cut short or empty (`Failed to read all data
                          # for array. … (file seems not fully written?)`, np.load's `EOFError:
                          # No data left in file`)
                          r"\(file seems not fully written\?\)|\bNo data left in file\b|"
                          # FFmpeg's AVERROR_INVALIDDATA, as the video readers over it print it
                          # (decord's `ERROR opening: x.mp4, Invalid data found when processing
                          # input`, PyAV's `InvalidDataError: [Errno 1094995529] Invalid data
                          # found when processing input: 'x.webm'`)
                          r"\bInvalid data found when processing input\b|"
                          # libjpeg's fatal error for a file that is no JPEG (torchvision's
                          # decode_jpeg: `Not a JPEG file: starts with 0x89 0x50`)
                          r"\bNot a JPEG file: starts with 0x[0-9a-f]{2} 0x[0-9a-f]{2}\b|"
                          # libsndfile's refusal of an audio file (python-soundfile's `Error
                          # opening 'x.flac': Format not recognised.`)
                          r"\bError opening '[^']+': (?:Format not recognised|File contains data "
                          r"in an unknown format)\.|"
                          # pandas' CSV tokenizer on a row with more fields than the header
                          r"\bError tokenizing data\. C error: Expected \d+ fields? in line \d+, "
                          r"saw \d+|"
                          # webdataset's word for a tar shard that holds one sample's file twice
                          r"\bduplicate file name in tar file\b")

# torch.save's C++ check that every byte it wrote landed (`[enforce fail at
# inline_container.cc:274] . unexpected pos 3695636864 vs 3695636752`)
SHORT_WRITE = re.compile(r"inline_container\.cc:\d+\]\W*unexpected pos \d+ vs \d+")
# An endpoint the job's own client could not reach or that did not answer, in the client's
# words: urllib3 and requests (`HTTPSConnectionPool(host='huggingface.co', port=443): Read timed
# out.`), httpx, a proxy, botocore, aiohttp, the socket module, transformers' and datasets' hub
# downloads. An exception of these types is the network's, whatever code raised it.
UNREACHED_ENDPOINT = re.compile(
    r"\bConnectTimeout(?:Error)?\b|\bConnectionRefusedError\b|\bgaierror\b|"
    r"\bHTTPS?ConnectionPool\(host=[^)]*\): Max retries exceeded(?!.*\bRead timed out\b)|"
    r"Cannot connect to proxy|Could not connect to the endpoint URL|"
    r"\bClientConnectorError\b|\bCannot connect to host \S+ ssl:|"
    r"(?i:\bcouldn't (?:connect to|reach) '?https?://)|\bCouldn't reach '[^']+' on the Hub\b|"
    # httpx's connect failure; the socket errnos of a network that did not carry the connect
    # (ENETUNREACH, ETIMEDOUT, ECONNREFUSED, EHOSTUNREACH), raised as a bare OSError too
    r"\bhttpx\.ConnectError\b|\[Errno (?:101|110|111|113)\]|"
    # an address the host does not have, to bind or connect from (EADDRNOTAVAIL)
    r"\[Errno 99\] Cannot assign requested address|"
    # redis-py's own words for the same errnos (`Error 111 connecting to redis-0.svc:6379.`)
    r"\bError (?:101|110|111|113) connecting to \S+:\d+|"
    # libcurl under a client (TensorFlow's GCS file system: `libcurl code 6 meaning 'Couldn't
    # resolve host name'`, code 7 for a connect that failed)
    r"\blibcurl code [67] meaning\b|"
    # a port another process holds: the listening end of a link could not be opened
    r"Address already in use|\bEADDRINUSE\b|"
    # Dask's comm layer gave up connecting (`OSError: Timed out trying to connect to
    # tcp://10.59.171.113:8786 after 30 s`)
    r"\bTimed out trying to connect to \w+://\S+ after\b|"
    # TRL's VLLMClient and vLLM's own client gave up on the server's health endpoint
    # (`ConnectionError: The vLLM server can't be reached at 10.0.0.5:8000 after 240 seconds.`)
    r"\bserver can't be reached at \S+ after\b|"
    # gRPC's channel under TensorFlow's and JAX's exceptions (`UnavailableError: failed to
    # connect to all addresses`, `Failed to connect to remote host: No route to host`, its
    # c-ares resolver's `DNS resolution failed for trainer-chief-0:2222`)
    r"failed to connect to all addresses|Failed to connect to remote host: (?!.*\bno error\b)|"
    r"DNS resolution failed for \S+|"
    # the TPU runtime's channel to another host of its slice
    r"\bFailed to establish \w+ grpc channel to \S+|"
    # gloo's socket of an address family the host does not have (`socket: Address family not
    # supported by protocol`)
    r"\bsocket: Address family not supported by protocol|"
    # paramiko's ssh client (a multi-node launcher reaching its hosts: `Unable to connect to
    # port 22 on 10.0.5.12`)
    r"\bUnable to connect to port \d+ on \S+|"
    # Horovod's task that reached none of its driver's addresses (NoValidAddressesFound)
    r"\bunable to connect to [\w ]{1,40} on any of the following addresses|"
    # the JVM's (Spark's and netty's clients: `Failed to connect to /10.0.10.5:7337`, the
    # address as Java prints it, and the `java.net.ConnectException` under it)
    r"\bFailed to connect to [\w.-]*/[\d.]+:\d+|\bjava\.net\.(?:ConnectException|"
    r"NoRouteToHostException|UnknownHostException)\b|"
    # Go's net package under a client written in Go (the W&B service, the kubelet): a name
    # its resolver could not find, a connect refused, unroutable or timed out
    r"\bdial (?:tcp|udp)[46]?(?: [^\s:]+:\d+)?: (?:lookup \S+ on \S+: no such host|connect: "
    r"(?:connection refused|no route to host|network is unreachable)|i/o timeout)")
# ... unless the endpoint answered (an HTTP status: access refused, a rate limit) or no
# connection was tried at all (the hub's offline mode): the job's setup, not the network
ANSWERED_OR_OFFLINE = re.compile(
    r"\(error [45]\d\d\)|\bResponseError\(|\b[45]\d\d (?:Client|Server) Error\b|"
    r"\btoo many [45]\d\d error responses\b|OfflineModeIsEnabled|"
    r"outgoing traffic has been disabled|\bHF_(?:HUB|DATASETS)_OFFLINE\b|local_files_only")
# AMD's kernel driver: `amdgpu: sq_intr: error, …`, `amdgpu: GPU fault detected`, a ring
# timeout, a reset that failed (`GPU reset(2) failed`); both a failure (the gate below) and the
# GPU's. A reset that began (`GPU reset begin!`) may succeed and the job go on, and its count of
# correctable errors (`… correctable hardware errors detected`) is no failure: neither is read.
_AMDGPU = r"\bamdgpu\b.{0,60}\b(?:error|fault|timeout|GPU reset\(\d+\) failed)"
# Any kernel GPU driver's own words for a hung GPU (Intel's xe and i915, through DRM):
# `xe 0000:3d:00.0: [drm] … Engine reset`, `… Timedout job`, `GPU HANG`; the GPU's, and a failure
_DRM_GPU_HANG = r"\[drm\].{0,80}\b(?:GPU HANG|GPU hang|[Ee]ngine reset|Timedout job)\b"
# A machine told to power off under the job (a cloud's spot reclaim presses the power key)
_POWER_OFF = (r"\bPower key pressed\b|\bSystem is powering down\b|"
              r"\bThe system will power off now\b")
# The interpreter could not open the job's script (`python3: can't open file '/w/train.py'`)
_SCRIPT_NOT_OPENED = r"\bpython[\d.]*: can't open file\b"
# A managed platform's own verdict on a job it failed (SageMaker's `CapacityError: Unable to
# provision requested ML compute capacity`, its own `InternalServerError`, Vertex AI's and
# GCE's stockouts)
_PLATFORM_VERDICT = (r"\bCapacityError\b|\bUnable to provision requested ML compute capacity\b|"
                     r"\b(?:The r|R)esources are insufficient in region\b|"
                     r"\bZONE_RESOURCE_POOL_EXHAUSTED\b|\bInsufficientInstanceCapacity\b|"
                     r"\bInternalServerError: We encountered an internal error\b|"
                     # Vertex AI's after its own retries of an internal error
                     r"\bInternal error occurred for the current attempt\b")
# A cloud's notice that it takes the VM back (GCP's metadata server, spot and preemptible VMs)
_RECLAIM_NOTICE = r"\b[Tt]ermination is imminent\b"
# A memory monitor's kill in its own words: YARN's container limit, Dask's nanny budget,
# Ray's raylet (`2 Workers … killed due to memory pressure (OOM)`)
_MEMORY_MONITOR_KILL = (r"Container killed by YARN for exceeding (?:physical |virtual )?memory "
                        r"limits|Worker\b.{0,80}?exceeded \d+% memory budget|"
                        r"killed due to memory pressure")
# A platform that stopped the job's pod, in its own sentences (the gate below reads them as a
# failure): the kubelet's graceful node shutdown, the scheduler's preemption of a pod
# (`Preempted by ns/pod on node N`), a Job's `activeDeadlineSeconds` (the cluster's time
# limit), an eviction's node condition
_STOPPED_BY_PLATFORM = (r"Pod was terminated in response to imminent node shutdown|"
                        r"\bPreempted by \S+ on node\b|"
                        # (the training operator's `Job bert has failed because it was active
                        # longer than specified deadline`, at its runPolicy's deadline)
                        r"\b(?:Job|it) was active longer than specified deadline\b|"
                        r"\bPod was active on the node longer than the specified deadline\b|"
                        r"\bThe node had condition: \[\w*Pressure\b|"
                        # the kubelet's NodeLost (`Node gpu-7 which was running pod p is
                        # unresponsive`), Ray's actor that died with its node
                        r"\bNode \S+ which was running pod \S+ is unresponsive\b|"
                        r"\bThe actor is dead because its node has died\b|"
                        # PBS's and Torque's MOM at the walltime, Flux's exceptions for the
                        # allocation's end, a cancel or a lost node (its event log names the
                        # job, `flux job attach` does not: `1800.412s: job.exception
                        # type=timeout …`), HTCondor's condor_rm
                        r"=>> PBS: job killed: walltime \d+ exceeded limit\b|"
                        r"\bjob\.exception (?:\S+ )?type=(?:timeout|cancel)\b|"
                        r"\bjob\.exception (?:\S+ )?type=exec\b.{0,40}\b(?:node failure on|"
                        r"lost contact with job shell on broker)\b|"
                        r"\bvia condor_rm\b|"
                        # Grid Engine's execd at the wallclock, Cobalt's walltime and user
                        # delete, HPE PALS' shepherd, AWS Batch's lost host and attempt
                        # timeout, Google Cloud Batch's runtime limit and lost VM
                        r"\bexceeded hard wallclock time\b|\bmaximum execution time exceeded\b|"
                        r"\buser delete requested with signal\b|\bshepherd died from signal \d+|"
                        r"\bHost EC2 \(instance [\w-]+\) terminated\b|"
                        r"\bJob attempt duration exceeded timeout\b|"
                        r"\btask runs over the maximum runtime\b|"
                        r"\bBatch no longer receives VM updates\b|"
                        # slurmctld's requeue after a node failed, a node it set DOWN; srun's
                        # task that a node could not launch
                        r"\brequeue job \S+ due to failure of node\b|"
                        r"\bsrun: error: task \d+ launch failed\b|"
                        # squeue's reason for a job whose launch failed on a node (a prolog that
                        # failed, a node that did not answer): Slurm requeued it and held it
                        r"\(launch failed requeued held\)|"
                        # HTCondor's user log: the execute host lost for longer than the job's
                        # lease, and a hold at the execute-duration limit
                        r"\bJob reconnection failed\b|"
                        r"\bThe job exceeded allowed execute duration of\b|"
                        # the kubelet's critical-pod admission, the cluster autoscaler's scale
                        # down, Karpenter's spot interruption, a pod the device plugin could
                        # not give its GPUs, kubectl's own word for a pod an operator deleted
                        r"\bPreempted in order to admit critical pod\b|"
                        r"\bdeleting pod for node scale down\b|"
                        r"\bInterruption triggered termination for the [Nn]ode\b|"
                        # Azure's Scheduled Events' spot eviction of a VM (`"EventType":
                        # "Preempt"`), a gcloud operations row of a VM GCE preempted
                        # (`compute.instances.preempted  zone/instances/vm-3`; not a filter on
                        # that type)
                        r"\"EventType\":\s*\"Preempt\"|"
                        r"(?<![=~])\bcompute\.instances\.preempted\s+\S*\binstances/[\w.-]+|"
                        r"\bUnexpectedAdmissionError\b|^pod \"[\w.-]+\" deleted\s*$|"
                        # Spark's word for a YARN application stopped from outside (`yarn
                        # application -kill`, the ResourceManager's own kill)
                        r"\bYARN application has exited unexpectedly with state KILLED\b|"
                        r"\bApplication \S+ was killed by user \S+\b|"
                        # Google Compute Engine's operations on a VM it stopped: a host's
                        # maintenance or its failure (a filter on them is no such operation)
                        r"(?<![=~])\bcompute\.instances\.(?:terminateOnHostMaintenance|hostError)\b|"
                        # the node itself went down under the job: a kernel panic, a BMC's
                        # power loss, a thermal shutdown, slurmctld killing the job on a node
                        # it found failed, an operator's reboot, a container runtime that
                        # could not start the job's container on the node
                        r"\bKernel panic - not syncing\b|"
                        r"\bPower Supply AC lost\b.{0,30}\bAsserted\b|"
                        r"\bPower off/down\s*\|\s*Asserted\b|"
                        r"\bcritical temperature reached\b.{0,30}\bshutting down\b|"
                        r"\bHARDWARE PROTECTION shutdown\b|"
                        r"\bKilling JobId=\d+ on failed node\b|"
                        r"\bThe system (?:will reboot|is going down for reboot) now\b|"
                        r"\bcontainer creation failed\b.{0,120}\bno loop devices available\b|"
                        r"\bcould not select device driver \"\S*\" with capabilities\b|"
                        # SkyPilot's managed-job controller on the cluster under the job
                        r"\bCluster is\s+(?:preempted or\s+)?failed \(status: \w+\)|"
                        # dstack's end of a run whose cloud took its instances back
                        r"\bRun failed with error code INTERRUPTED_BY_NO_CAPACITY\b|"
                        # SageMaker's status of a job stopped at its runtime limit or a reclaim
                        r"\"SecondaryStatus\":\s*\"(?:MaxRuntimeExceeded|Interrupted)\"|"
                        # ... as its SDK prints the job's status transitions (`{time} {Status} -
                        # {StatusMessage}`: `2024-03-02 04:11:09 Interrupted - …`)
                        r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?:Interrupted|MaxRuntimeExceeded|"
                        r"MaxWaitTimeExceeded) - |"
                        # a Databricks cluster ended under the job for its spot instances
                        r"\bCluster terminated\. Reason: Spot instance termination\b|"
                        # a Cloud TPU node's state as `gcloud compute tpus … describe` prints it
                        r"^\s*state: PREEMPTED\s*$")
# ... and words that name such a stop but are also set up, filtered on and watched for by
# healthy jobs (a spot handler's notice it polls, a gcloud filter): the platform's family only
# where the line failed for its own reasons
_RECLAIM_WORDS = (r"(?i:\bspot (?:instance )?interruption (?:notice|warning)\b|"
                  r"\bterminated due to spot interruption\b|"
                  r"\bspot instance is scheduled for interruption\b)|"
                  r"\bcompute\.instances\.preempted\b")
# A ZMQ or socket bind that gave up (`Reached max retry for bind: Address already in use`)
_BIND_GAVE_UP = r"Reached max retr(?:y|ies) for bind"

_WORDS: tuple[tuple[Family, re.Pattern[str]], ...] = tuple(
    (family, re.compile(pattern)) for family, pattern in (
        # ENOMEM from the verbs or libfabric stack is the NIC's resources (locked-memory
        # limit, queue sizes): `ibv_reg_mr … Cannot allocate memory`, `Unable to create
        # extended CQ: Cannot allocate memory`, never the host out of memory
        # (and an errno the NIC's stack reports, `NET/OFI Unable to retrieve completion queue
        # entries … Input/output error`, is the NIC's, not a disk's)
        (Family.NETWORK, r"(?:\bibv_\w+|libfabric|NET/IB|NET/OFI|\bmlx5\w*|memory region|"
                         # and MPICH's OFI netmod (`MPIDI_OFI_handle_cq_error … OFI poll failed`)
                         r"\bOFI poll failed|\bMPIDI_OFI_\w+|"
                         r"\b(?:CQ|QP)\b).{0,160}(?:Cannot allocate memory|ENOMEM|"
                         r"Input/output error|EIO\b)"),
        (Family.OOM, r"(?i:out[- ]of[- ]memory)|OutOfMemory|\bOOM\b|(?i:oom[-_ ]?kill)|"
                     # the CUDA runtime's and driver's names for an allocation that failed
                     r"\bcudaErrorMemoryAllocation\b|\bCUDA_ERROR_OUT_OF_MEMORY\b|"
                     # YARN's node manager killing a container over its limit (Hadoop 2's
                     # `running beyond physical memory limits`, 3's `beyond the 'PHYSICAL'
                     # memory limit`)
                     r"\bbeyond (?:the '(?:PHYSICAL|VIRTUAL)' memory limit|(?:physical|virtual) "
                     r"memory limits)\b|"
                     # Paddle's allocator (`paddle::memory::allocation::BadAlloc`)
                     r"\ballocation::BadAlloc\b|"
                     # MindSpore's device memory pool (`Memory not enough: current free
                     # memory size[…] is smaller than required size[…]`), MXNet's allocator
                     r"\bMemory not enough\b|(?i:\bmemory isn't enough and alloc failed\b)|"
                     # the runtimes of compiled MPI codes: Intel Fortran's `forrtl: severe (41):
                     # insufficient virtual memory`, gfortran's ALLOCATE (`Allocation would
                     # exceed memory limit`), GROMACS's smalloc (`Not enough memory. Failed to
                     # realloc 8589934592 bytes for …`)
                     r"\bforrtl: severe \(41\): insufficient virtual memory\b|"
                     r"\bAllocation would exceed memory limit\b|"
                     # a code's own word that an allocation failed (LAMMPS's memory.cpp: `Failed
                     # to allocate 8388608000 bytes for array …`)
                     r"(?i:\bfailed to allocate \d+ bytes\b)|"
                     r"\bNot enough memory\. Failed to (?:m|c|re)alloc \d+ bytes\b|"
                     r"\bcudaMalloc retry failed\b|\bAllocate memory failed\b|"
                     # Ray's object store (shared memory) full of objects still in scope
                     # (`ObjectStoreFullError: Failed to put object … in object store because
                     # it is full.`): memory the job holds, not a disk
                     r"\bObjectStoreFullError\b|"
                     r"Cannot allocate memory|\bMemoryError\b|bad_alloc|ENOMEM|"
                     r"Killed process \d+|memory (?:limit|cgroup).{0,40}(?:exceeded|reached)|"
                     # PBS's and Torque's MOM, HTCondor's hold at the job's memory limit
                     r"=>> PBS: job killed: v?mem \d+\w* exceeded limit\b|"
                     r"\bgone over (?:the )?(?:cgroup )?memory limit\b|"
                     # LSF's and Grid Engine's memory-limit kills
                     r"^\s*TERM_MEMLIMIT\b|\bexceeds job hard limit \"h_vmem\"|"
                     # the kernel's memory-cgroup report when it kills (usage at the limit)
                     r"memory(?:\+swap)?: usage (\d+)kB, limit \1kB|"
                     # other accelerators' words: Level Zero (Intel XPU), Habana's allocator
                     r"OUT_OF_(?:DEVICE|HOST)_MEMORY|PT_DEVMEM Allocation failed|"
                     # AWS Neuron's runtime could not allocate a tensor on its device, Ascend's
                     # runtime its memory (`EL0004: … Failed to allocate memory.`)
                     r"\bnrt_tensor_allocate\b.{0,40}Allocation Failure|"
                     r"\bEL0004: .{0,80}Failed to allocate memory\b|"
                     # XLA's allocator on a TPU's or GPU's memory (`RESOURCE_EXHAUSTED:
                     # Attempting to reserve 10.51G at the bottom of memory`)
                     r"RESOURCE_EXHAUSTED: .{0,60}(?:[Aa]llocat|[Aa]ttempting to reserve|"
                     r"[Rr]an out of memory)|\bOOM when allocating tensor\b|"
                     # numpy's allocation (`_ArrayMemoryError: Unable to allocate 37.3 GiB for
                     # an array with shape …`)
                     r"\bUnable to allocate [\d.]+ [KMGTP]i?B for an array\b|ArrayMemoryError|"
                     # an inference engine's memory too small for its KV cache at start-up
                     # (vLLM's `No available memory for the cache blocks`, `… KV cache is
                     # needed, which is larger than the available KV cache memory`, its free
                     # memory under the share asked for; SGLang's `Not enough memory. Please
                     # try to increase --mem-fraction-static`)
                     r"\bNo available memory for the cache blocks\b|"
                     # accelerate's find_executable_batch_size: it halves the batch only on an
                     # out-of-memory (should_reduce_batch_size), and gives up at zero
                     r"\bNo executable batch size found, reached zero\b|"
                     r"\blarger than the available KV cache memory\b|"
                     # (vLLM <= 0.9: `The model's max seq len (131072) is larger than the
                     # maximum number of tokens that can be stored in KV cache (93760)`;
                     # text-generation-inference's warmup: `Not enough memory to handle 4096
                     # prefill tokens. You need to decrease `--max-batch-prefill-tokens``)
                     r"\bis larger than the maximum number of tokens that can be stored in KV cache\b|"
                     r"\bNot enough memory to handle \d+ prefill tokens\b|"
                     r"\bon startup is less than desired GPU memory utilization\b|"
                     r"\bNot enough memory\. Please try to increase --mem-fraction-static\b|"
                     # Slurm's job state (seff's `State: OUT_OF_MEMORY`, sacct's `OUT_OF_ME+`),
                     # cgroup v2's count of its OOM kills (`memory.events`: `oom_kill 1`), the
                     # kubelet's, earlyoom's words
                     r"\bOUT_OF_ME(?:MORY\b|\+)|^\s*oom_kill [1-9]\d*\s*$|"
                     r"\bSystem OOM encountered\b|\blow memory! at or below SIG(?:TERM|KILL) limits\b|"
                     + _MEMORY_MONITOR_KILL),
        # a node's clock the services it talks to refuse: S3's `RequestTimeTooSkewed`, MUNGE's
        # credential expired or from the future (Slurm's authentication), a certificate or
        # token not yet valid or out of its time frame
        (Family.CLOCK, r"\bRequestTimeTooSkewed\b|\bMunge decode failed: (?:Expired|Rewound) "
                       r"credential\b|\bcertificate is not yet valid\b|"
                       r"\bToken used too early\b|\bCheck your iat and exp values\b"),
        # a BMC's event log on the node's own memory (`| Memory #0x22 | Uncorrectable ECC |
        # Asserted`): the node's, not a GPU's
        (Family.INFRASTRUCTURE, r"\|\s*Memory\b[^|]*\|\s*(?:Uncorrectable ECC|"
                                r"Correctable ECC logging limit reached)\b|"
                                r"\|\s*Critical Interrupt\b[^|]*\|\s*Bus Uncorrectable (?:error|Error)\b"),
        (Family.GPU, r"CUDA error|cudaError|CUDA_ERROR|CUBLAS_STATUS_(?!SUCCESS)|"
                     # Habana's device fatal error; Ascend's AI core faulted under a task
                     r"\bdevice critical error that requires a restart\b|\[aicore exception\]|"
                     r"CUDNN_STATUS_(?!SUCCESS)|illegal memory access|unspecified launch failure|"
                     r"device-side assert|\bXid\b|NVRM:|(?i:uncorrectable)|ECC error|GPU is lost|"
                     r"fallen off the bus|NVML(?!Error_NotSupported)|"
                     r"nvidia-container-cli: initialization error: nvml error: |HIP error|hipError|HSA_STATUS_ERROR|"
                     r"no CUDA-capable device|CUDA driver (?:version|initialization)|"
                     r"misaligned address|Memory access fault by GPU|Cuda failure|"
                     r"CUDA IPC|peer access is not supported|"
                     # the CUDA samples' error check that many codes copy (`HANDLE_ERROR`:
                     # `unknown error in cuda_projector.cu at line 126`), the call's error
                     # string, then its CUDA source file and line
                     r"\b(?:error|failure|invalid \w+)\b.{0,60} in \S+\.cu at line \d+|"
                     # a kernel's own assertion, as CUDA prints it from the device
                     # (`IndexKernel.cu:92: operator(): block: [22,0,0], thread: [64,0,0]
                     # Assertion `…` failed.`): a device-side assert before torch reports it
                     r"\.cu:\d+: .{0,200}\bblock: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] "
                     r"Assertion|"
                     # Intel's GPU runtimes (Level Zero, Unified Runtime): their CUDA error
                     r"\bZE_RESULT_ERROR_\w+|\bUR_RESULT_ERROR_\w+|"
                     # NCCL's code for a CUDA call that failed under it
                     r"(?i:unhandled cuda error)|ncclUnhandledCudaError|"
                     # the TPU runtime's word for a device that stopped (an on-device check)
                     r"Accelerator device halted\b|"
                     # ROCr's report of a GPU's own fault (`HW Exception by GPU node-9 … reason
                     # :GPU Hang`), amdgpu's firmware scheduler gone silent, Habana's driver
                     # giving up on its device, Ascend's device that stopped answering or
                     # whose core faulted
                     r"\bHW Exception by GPU node-\d+|\bMES failed to respond\b|"
                     r"\bhabanalabs\b.{0,80}\bDevice is NOT usable\b|"
                     r"\bDevice\[\d+\] lost heartbeat\b|"
                     r"\b(?:vector|AI|ai) core execution is abnormal\b|"
                     # Ascend's runtime: a call its device driver failed (`rtGetDevMsg execute
                     # failed, reason=[driver error:internal error]`)
                     r"\breason=\[driver error:internal error\]|"
                     # an NVSwitch's fatal error, as the kernel's driver (`nvidia-nvswitch2:
                     # SXid (PCI:0000:86:00.0): 24007, Fatal, …`) and Fabric Manager say it
                     r"\bSXid \(PCI:[0-9a-fA-F:.]+\): \d+, Fatal\b|"
                     r"(?i:\bNVSwitch\b.{0,80}\bfatal\b|\bfatal error\b.{0,40}\bNVSwitch\b)|"
                     + _AMDGPU + "|" + _DRM_GPU_HANG),
        (Family.STORAGE, r"No space left on device|Disk quota exceeded|ENOSPC|EDQUOT|"
                         # SageMaker's ClientError (`Artifact upload failed:Insufficient disk
                         # space`)
                         r"\bInsufficient disk space\b|"
                         # Go's error string (containerd's, the kubelet's): `write /var/lib/…:
                         # no space left on device`
                         r"(?<![A-Za-z] )\bno space left on device\b|"
                         # a volume the kubelet could not mount for the pod (its CSI driver
                         # missing on the node, the mount failing or timing out)
                         r"\bMountVolume\.\w+ failed for volume \"[^\"]{1,200}\" : (?:rpc error|"
                         r"kubernetes\.io/csi|mount failed)|"
                         r"\bnot found in the list of registered CSI drivers\b|"
                         r"Read-only file system|Input/output error|Stale file handle|"
                         r"\[Errno (?:5|17|28|30|116|122)\]|file write failed|FileExistsError|"
                         r"(?i:short write)|"
                         # Torch7's disk file (`write error: wrote 9367499 blocks instead of …`)
                         r"\bwrite error: wrote \d+ \w+ instead of \d+|"
                         # torch.save's writer: fewer bytes landed than it wrote
                         + SHORT_WRITE.pattern + "|"
                         r"(?i:\blocal disk is full\b)|"
                         # a checkpoint the job could not write, in words that say it was one
                         r"(?i:\b(?:saving|writing|uploading) (?:the |a )?checkpoint\w* failed|"
                         r"\bcheckpoint (?:save|write|upload) failed|"
                         r"failed to (?:save|write|upload) (?:the |a )?checkpoint)|"
                         # a disk monitor's alarm (Ray's raylet: `… is over 95% full`); a
                         # failure only where its writer logged it as an error
                         r"\bis over \d+% full\b|"
                         # a file the code could not write, in its runtime's words (Intel
                         # Fortran's `forrtl: severe (38): error during write, unit 50, file …`, a
                         # C code's `Write error in iow_direct_write; … write returns -1`), not a
                         # socket's or a console's
                         r"(?i:\bwrite error\b|\berror (?:during|while|on) writ(?:e|ing)\b)"
                         r"(?![^\n]{0,80}\b(?:socket|pipe|connection|peer|stdout|stderr)\b)|"
                         # or open for writing (`Can't open file for writing checkpoint …`)
                         # or open at all, in Intel Fortran's words (`forrtl: severe (30): open
                         # failure, unit 19, file …`; a file not found, its 29, is a path the job
                         # gave, as Python's FileNotFoundError is)
                         r"\bforrtl: severe \(30\): |"
                         r"(?i:\b(?:can't|cannot|can not|unable to|could not|failed to) open\b"
                         r"[^\n]{0,80}\bfor writing\b)|"
                         r"(?i:\bfilled disk\b|\bdisk quota (?:has been |was )?exceeded\b)|"
                         # a Lustre client that lost its server or was evicted by it (the
                         # kernel's `Lustre: scratch-OST0003-osc-…: Connection to scratch-OST0003
                         # (at 10.10.1.21@o2ib) was lost; in progress operations using this service
                         # will wait for recovery to complete`, `LustreError: 167-0: …: This client
                         # was evicted by scratch-OST0012; …`, ptlrpc's `Request sent has timed
                         # out for slow reply`); one restored later is skipped where it is read
                         r"\bLustre(?:Error)?: .{0,300}?(?:\bwas lost; in progress operations using "
                         r"this service\b|\bThis client was evicted by\b|"
                         r"\bRequest sent has timed out for slow reply\b)"),
        (Family.DATA, CORRUPT_DATA.pattern),
        (Family.INFRASTRUCTURE, r"\bEvicted\b|\bevicted\b|(?i:preempt)|TIME LIMIT|NodeNotReady|"
                                # a node's kubelet not ready (`describe node`'s Ready False,
                                # KubeletNotReady, PLEG is not healthy), PBS's node down
                                # (`pbsnodes`: `state-unknown,down node down: communication
                                # closed`), a cloud's stop of a VM on failing hardware
                                r"\bKubeletNotReady\b|\bPLEG is not healthy\b|"
                                r"\bKubelet stopped posting node status\b|"
                                # the node's container runtime and its plugins could not start
                                # the pod: its sandbox's network (the CNI), the shim it timed
                                # out on, the GPU hook's mounts or driver
                                r"\bFailed to create pod sandbox: .{0,120}\bfailed to (?:setup|set up) "
                                r"network for sandbox\b|"
                                r"\bfailed to create shim task: context deadline exceeded\b|"
                                r"\bnvidia-container-cli: (?:mount|ldcache|detection) error\b|"
                                # a cloud or a managed platform out of machines, or failing
                                # under the job; Databricks' spot loss
                                + _PLATFORM_VERDICT + r"|\bSPOT_INSTANCE_TERMINATION\b|"
                                r"\bnode down: |\bis running on degraded hardware\b|"
                                # PBS's server that lost a MOM under a running job
                                r"\bJob (?:deleted|requeued), execution node \S+ down\b|"
                                # Open MPI's own stop at the --timeout (MPIEXEC_TIMEOUT) given
                                r"\buser-provided time limit for job execution has been reached\b|"
                                # the node's own memory failed under a process (the kernel's
                                # memory-failure handler; EDAC's uncorrected error count)
                                r"\bdue to hardware memory corruption\b|\bEDAC MC\d+: \d+ UE\b|"
                                r"NODE_FAIL|(?i:node (?:failure|lost|was lost|is down))|"
                                # Slurm's state of a job ended from outside or on a node that
                                # failed or never booted (scontrol's `JobState=BOOT_FAIL`,
                                # sacct's `BOOT_FAIL`; scancel's CANCELLED, its limits')
                                r"\bBOOT_FAIL\b|"
                                r"\bJobState=(?:PREEMPTED|TIMEOUT|DEADLINE|CANCELLED)\b|"
                                # Kubernetes' DisruptionTarget reasons: the pod was ended from
                                # outside (its node gone, drained, preempted, shut down)
                                r"\b(?:DeletionByPodGC|DeletionByTaintManager|"
                                r"EvictionByEvictionAPI|PreemptionByScheduler|"
                                r"TerminationByKubelet)\b|"
                                # YARN: `Container released on a *lost* node`
                                r"(?i:\blost\*? node\b)|"
                                # PBS: the mother superior lost a sister node's MOM (`job
                                # killed: node 18 (n314) requested job terminate, 'EOF'`)
                                r"\bjob killed: node \d+ \([\w.-]+\) requested job terminate\b|"
                                r"/dev/shm|(?i:insufficient shared memory)|"
                                # LSF's end-of-job reasons (its memory limit is memory's), and
                                # Slurm's clients whose controller or partition was not there
                                # (bhist's `Completed <exit>; TERM_RC_RECLAIM: …` too)
                                r"(?:^\s*|; )TERM_(?:RUNLIMIT|OWNER|ADMIN|PREEMPT|LOAD|REQUEUE_\w+|"
                                r"HOST|FORCE_\w+|WINDOW|CPULIMIT|DEADLINE|UNKNOWN|ZOMBIE|RC_RECLAIM|"
                                r"BUCKET_KILL|RMS|ORPHAN_SYSTEM|REMOVE_HUNG_JOB|KUBE)\b|"
                                r"\b(?:srun|sbatch|salloc): error: (?:.{0,60}: )?(?:Unable to contact "
                                r"slurm controller|Required partition not available)\b|"
                                # NCCL's shared-memory transport could not create its segment
                                # (include/shm.h, after any of shm_open, fallocate, mmap):
                                # the container's /dev/shm, as its `Last error:` already is
                                r"Error while creating shared memory segment|"
                                r"(?i:out of shared memory)|(?i:spot instance)|"
                                # srun could not start the step's tasks on a node
                                r"Task launch for \S+ failed on node|Application launch failed|"
                                # nor its container (pyxis/enroot, the node's container runtime)
                                r"pyxis: (?:couldn't start container|container start failed)|"
                                # slurmstepd could not exec the step's program on the node
                                r"slurmstepd: error: execve\(\)|"
                                # Ray's GCS: an actor failed with the node it ran on (`Actor is
                                # failed 2ab7… on worker fada… at node 3ddf…`); its `Node 3ddf…
                                # failed, reconstructing actors` alone is any removed node's
                                # note, a scale-down's too
                                r"\bActor is failed \w+ on worker \w+ at node [0-9a-f]{28,}, need_reschedule = (?:1|true)"
                                r"(?!.*death context type = (?:OOM|CreationTaskFailure|RuntimeEnvFailed)Context)|"
                                + _RECLAIM_NOTICE + "|" + _POWER_OFF + "|" + _STOPPED_BY_PLATFORM
                                + "|" + _RECLAIM_WORDS),
        (Family.NETWORK, r"NET/IB|NET/Socket|NET/OFI|\bibv_\w+|\bmlx5|IBV_WC_|(?<![A-Za-z])(?i:rdma)|"
                         # Open MPI's openib BTL: a completion the fabric failed (`error polling LP
                         # CQ with status RETRY EXCEEDED ERROR status number 12 …`); a flushed
                         # work request is only the aftermath of another
                         r"\berror polling [HL]P CQ with status (?!WORK REQUEST FLUSHED)[A-Z ]+ERROR\b|"
                         r"\bThe InfiniBand retry count between two MPI processes has been\b|"
                         r"libfabric|\bfi_\w+\(|\bEFA\b|(?i:connection refused)|ECONNREFUSED|"
                         r"(?i:no route to host)|EHOSTUNREACH|(?i:network (?:is )?unreachable)|"
                         r"(?i:\bhost (?:is )?unreachable)|"
                         # a name that did not resolve, in gRPC's and Java's words
                         r"DNS resolution failed|UnknownHostException|"
                         # curl's exit codes for a connect that failed, timed out or was cut
                         # (`curl: (28) Failed to connect … Timeout was reached`, `curl: (56)
                         # Recv failure: Connection reset by peer`, `(35)` a TLS handshake)
                         r"\bcurl: \((?:7|28|35|52|56)\) |"
                         # UCX's own codes and words for a peer it could not reach in time
                         r"UCS_ERR_(?:UNREACHABLE|ENDPOINT_TIMEOUT)|\bEndpoint timeout\b|"
                         # urllib3 under requests: the HTTP endpoint could not be reached
                         # (its ConnectTimeoutError among UNREACHED_ENDPOINT's words below)
                         r"NewConnectionError|"
                         r"Failed to establish a new connection|"
                         + UNREACHED_ENDPOINT.pattern + "|"
                         r"ENETUNREACH|"
                         # Go's net package (kubelet, operators): `dial tcp …: i/o timeout`
                         r"\bdial (?:tcp|udp)[46]? \S+: .{0,40}(?:i/o timeout|no such host|"
                         r"(?i:connection timed out))|"
                         # ... its resolver (`dial tcp: lookup minio.svc on 10.96.0.10:53: no
                         # such host`), and net/http's handshake that never finished
                         r"\blookup \S+ on \S+: (?:no such host|.{0,90}i/o timeout|server "
                         r"misbehaving)|\bnet/http: TLS handshake timeout\b|"
                         # kafka-python's connect that the OS refused (`… returned error 111.`),
                         # Kafka's Java client's (`Connection to node -1 (kafka-0…/10.42.7.3:9092)
                         # could not be established. Broker may not be available.`)
                         r"\breturned error 111\b|\bConnection to node -?\d+ .{0,160}\bcould not be "
                         r"established\b|"
                         # nslookup's and dig's resolver that answered nothing
                         r"\bno servers could be reached\b|"
                         # ping's own refusal to send a packet larger than the interface's
                         # MTU with fragmentation off (`ping -M do`): a link set up for
                         # smaller frames than the fabric's
                         r"\bmessage too long, mtu=\d+|"
                         # Boost.Asio's resolver (`resolve: Host not found (authoritative)`)
                         r"\bHost not found \((?:authoritative|non-authoritative)\)|"
                         r"Name or service not known|(?i:failure in name resolution)|"
                         r"nodename nor servname|getaddrinfo|Could not resolve host|"
                         r"Connection timed out|ETIMEDOUT|transport retry counter|"
                         r"Address already in use|EADDRINUSE|(?i:completion error)|"
                         # an address the host does not have (a bind or a link-local source)
                         r"Cannot assign requested address|EADDRNOTAVAIL|"
                         # UCX's and verbs' words for NCCL's `transport retry counter`
                         r"[Tt]ransport retry count exceeded|"
                         # gRPC's channel could not reach its target (TensorFlow, JAX)
                         r"failed to connect to all addresses|"
                         # UCX's UCS_ERR_UNREACHABLE text, EFA's unanswered peer (through
                         # aws-ofi-nccl), MPICH's PMI and RCCL's socket giving up
                         r"Destination is unreachable|Unreachable remote - never received a "
                         r"response|Unable to get host entry for \S+|"
                         r"socket(?:Poll|Start)Connect: exceeded (?:retries|timeouts)|"
                         # Open MPI's openib help text: a link that gave up retrying
                         r"InfiniBand retry count between two MPI processes has been\b|"
                         # ... and its BML's: no transport joins two of the job's processes
                         r"\bMPI processes are unable to reach each other\b|"
                         # UCX's UD transport's endpoint that timed out (`Fatal: UD endpoint
                         # 0x1d7c4e0 to <no debug data>: unhandled timeout error`)
                         r"\bUD endpoint \S+(?: to .{0,40})?: unhandled timeout error\b|"
                         # a Ray driver or node that could not reach the head's GCS at the
                         # address it was given (not a raylet's check that its GCS went)
                         r"Failed to connect to GCS at address \S+ within|"
                         r"Unable to connect to GCS at \S+|"
                         # gloo could not connect the ranks to each other at start-up
                         r"connectFullMesh failed|"
                         # a failed connect() call (Open MPI's TCP transport, its launcher)
                         r"\bconnect\(\) to \S+ failed|failed to TCP connect|"
                         # Open MPI's and PRRTE's help text (`Local host:` / `Remote host:` below)
                         r"unable to complete a TCP connection|"
                         # Horovod's driver: a task seen from another address than it declared
                         r"connected from a different address|"
                         # ... and a task that reached none of the driver's (NoValidAddressesFound)
                         r"\bunable to connect to [\w ]{1,40} on any of the following addresses|"
                         # gRPC's status text (`grpc error:Connect Failed`), the AWS SDK's
                         # under the status TensorFlow gives it (`Unknown: : Unable to …`)
                         r"grpc error: ?Connect Failed\b|"
                         r"(?:Internal|Unavailable|UNAVAILABLE|Unknown|UNKNOWN)\W+"
                         r"Unable to connect to endpoint|"
                         # Ascend's HCCL: a socket it could not listen on (its links that then
                         # never came up are a peer's story as much as the network's)
                         r"listen on ip\[[^\]]*\] and (?:specific )?port\[\d+\] fail\b"),
        # (TensorFlow's `Local rendezvous is aborting with status: DEADLINE_EXCEEDED: Collective
        # has timed out during execution`: its rendezvous of one collective's tensors)
        (Family.INIT_TIMEOUT, r"(?!.*\bCollective has timed out\b)"
                              r"(?i:(?:rendezvous|store|barrier|init_process_group|"
                              r"initiali[sz]\w*)\W.{0,80}(?:timed out|timeout))|"
                              r"(?i:(?:timed out|timeout)\W.{0,60}(?:rendezvous|store based|"
                              r"initiali[sz]))|"
                              # a launcher that gave up on its workers or hosts coming up
                              r"(?i:timed out waiting for (?:the )?(?:all |remote |spark |ray |"
                              r"dask |horovod )?(?:tasks|workers|"
                              r"processes|ranks|nodes|hosts|peers) to (?:start|join|connect|"
                              r"register))"),
        (Family.ENVIRONMENT, r"undefined symbol|cannot open shared object file|"
                             r"GLIBC\w*_[\d.]+' not found|(?i:version mismatch)|"
                             r"(?i:failed to load \S*\s?(?:library|lib\w+|\S+\.so))|"
                             r"\bOSError: lib"),
        # mpirun's (ORTE's) own daemons would not start on the nodes
        (Family.LAUNCH, r"ORTE was unable to reliably start one or more daemons"),
        # a transport error wrapped in any exception type is the peer's story first
        (Family.PEER_LOST, r"Connection reset by (?:remote )?peer|closed by (?:remote )?peer|Broken pipe|"
                           r"Connection was closed before we received a valid response|"
                           r"EPIPE|ECONNRESET|remote process exited|(?i:peer .{0,20}disconnected)"),
        # Open MPI's help text for a call the job made out of order: its own misuse of MPI
        (Family.SOFTWARE, r"\bfunction was called (?:before MPI_INIT|after MPI_FINALIZE) was "
                          r"invoked\b"),
        # srun could not create the job's step for what it asked of the cluster (a node
        # configuration, a resource specification, a processor count no node has)
        (Family.SOFTWARE, r"\bUnable to create step for job \d+: (?:Requested node configuration "
                          r"is not available|Invalid [\w ()]{1,40} specification|More processors "
                          r"requested than permitted)"),
        # Hydra's report of a job that failed in its own code or configuration, its only
        # failure word (`Key 'warmup_ratio' is not in struct`, then `Set the environment
        # variable HYDRA_FULL_ERROR=1 for a complete stack trace.`)
        (Family.SOFTWARE, r"\bHYDRA_FULL_ERROR=1 for a complete stack trace\b"),
        # XLA's (and absl's) status for a call the program made wrongly (`Execution of replica
        # 0 failed: INVALID_ARGUMENT: Executable expected shape f32[8,1024]…`)
        (Family.SOFTWARE, r"\b(?:INVALID_ARGUMENT|UNIMPLEMENTED): "),
        (Family.SOFTWARE, r"\b(?:KeyError|IndexError|TypeError|ValueError|AttributeError|"
                          r"NameError|AssertionError|ImportError|ModuleNotFoundError|"
                          r"NotImplementedError|ZeroDivisionError|UnboundLocalError|"
                          r"RecursionError|SyntaxError|FileNotFoundError|JSONDecodeError|"
                          r"UnicodeDecodeError)\b|size mismatch|(?i:shape mismatch)|"
                          r"(?i:did not receive grad)|(?i:unused parameters)|"
                          r"\bfinished reduction in the prior iteration\b|"
                          r"(?i:found nan)|\b(?:NaN|nan|inf)\b.{0,30}\b(?:[Ll]oss|grad)|"
                          r"\b(?:[Ll]oss|grad\w*)\b.{0,30}\b(?:NaN|nan|inf(?:inite)?)\b|"
                          r"result nan\b|\breturned nan values\b|(?i:\bnon-finite loss\b)|"
                          # a mixed-precision loss scaler that can go no lower: the loss
                          # keeps overflowing (DeepSpeed's, fairseq's)
                          r"\bcannot decrease scale anymore\b|\bMinimum loss scale reached\b|"
                          # a C library's own assertion: glibc's `Assertion `x' failed.`,
                          # PSM3's `Assertion failure at ptl.c:196: …`
                          r"\bAssertion [`'].{0,300}' failed\b|\bAssertion failure at \S+:\d+|"
                          # a C/C++ library's own assert macro (`GGML_ASSERT: llama.cpp:9881:
                          # false && "not implemented"`)
                          r"\b[A-Z][A-Z0-9]*_ASSERT: \S+:\d+|"
                          # LLVM's fatal error handler (Triton's and XLA's compilers: `LLVM
                          # ERROR: Failed to compute parent layout for slice layout.`)
                          r"^\W*LLVM ERROR: |"
                          # argparse refusing the job's command line, and the interpreter that
                          # could not open the job's script (`python3: can't open file …`)
                          r"\berror: (?:unrecognized arguments|the following arguments are "
                          r"required|argument [\w/-]+: (?:invalid|expected))|"
                          + _SCRIPT_NOT_OPENED),
        (Family.KILLED, r"\bKilled\b|killed by (?:unknown )?signal|SIGKILL|[Ss]ignal 9\b|WTERMSIG \d+|Segmentation fault|SIGSEGV|SIGABRT|"
                        # a process's own handler on the signal it caught (PETSc's `Caught
                        # signal number 11 SEGV: Segmentation Violation`)
                        # (not a stop's: HUP, INT, TERM are someone's request)
                        r"\bCaught signal (?:number )?(?!(?:1|2|15)\b)\d+\b|"
                        r"SIGBUS|Bus error|\bAborted\b|core dumped|Fatal Python error|"
                        r"\bSegfault encountered\b|\]: segfault at [0-9a-f]+ ip\b|\bdumped core\b|"
                        r"\bExited \((?:1[2-9]\d|2[0-5]\d)\) |"
                        r"(?i:exit(?:ed)? (?:with )?(?:code|status))|exitcode|return code|"
                        r"(?i:died unexpectedly)|terminate called"),
        # glog's CHECK, a C++ framework's own assertion: read last, for the condition it
        # checked often carries the cause (`Check failed: len >= 0 peer=…: Connection reset`)
        # ... but a check on a connection (`Check failed: … Failed to connect to GCS within 60
        # seconds`, `len > 0 peer=…`) failed because the other end went: the peer's story
        (Family.PEER_LOST, r"\bCheck failed: .*(?:\b(?i:failed to connect|connection|"
                           r"connect(?:ed)? to|socket|heartbeat|timed out)\b|\bpeer\b)"),
        (Family.SOFTWARE, r"\bCheck failed: "),
    )
)

# A line that shows something failed at all (the gate before the lexicon: a healthy job's
# "error_rate=0.1" or "retrying" is no failure).
_FAILED = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception|Exit)\b(?::|\s*$|\()|\b(?:ERROR|FATAL|CRITICAL)\b|"
    r"No space left|Disk quota exceeded|Input/output error|Read-only file system|\b(?:Error|error)\b"
    r"(?:\s*[:\]|!]|\s+(?:in|while|during|when|on|at|from|occurred))|"
    r"\b(?:failed|FAILED|Failed)\b|\bAssertion failure\b|\bKilled\b|\bAborted\b|core dumped|"
    # Intel Fortran's runtime ending the process (`forrtl: severe (41): insufficient virtual
    # memory`)
    r"\bforrtl: severe \(\d+\): |"
    r"Segmentation fault|"
    # the CUDA and HIP runtimes' own error names, in a code's own check macro (`HIP error
    # hipErrorOutOfMemory at line 118 in file …`, `CUDA error cudaErrorIllegalAddress at …`)
    r"\b(?:cuda|hip)Error(?!To)[A-Z]\w+|"
    # a native signal handler's banner (vLLM, SGLang, TensorRT-LLM, torch_xla)
    r"\bSegfault encountered\b|"
    # the kernel's own record of a training process's segfault, and systemd-coredump's
    # (`python[901244]: segfault at 8 ip … in libtorch_cpu.so`, `Process 901244 (python) of
    # user 1001 dumped core.`); a node's daemon that crashed is not the job
    r"\b(?:python[\d.]*|pt_main_thread|pt_data_worker|torchrun)\[\d+\]: segfault at [0-9a-f]+ ip\b|"
    r"\bProcess \d+ \((?:python[\d.]*|pt_main_thread|pt_data_worker|torchrun)\) of user \d+ "
    r"dumped core\b|"
    # a container Docker lists as ended by a signal (`Exited (139) 12 minutes ago`)
    r"\bExited \((?:1[2-9]\d|2[0-5]\d)\) |"
    # TensorFlow's FATAL, which aborts the process (`2019-05-19 15:08:13.136034: F
    # tensorflow/core/common_runtime/gpu/gpu_event_mgr.cc:273] …`)
    r"\d\d:\d\d:\d\d\.\d+: F \S+:\d+\] |"
    # glog's and absl's FATAL stamp (`F0523 10:01:02.123456  9276 file.cc:487] …`, torch_xla's
    # `F0000 00:00:1717141650.890307 9276 …`)
    r"(?:^|\W)F\d{4} \d\d:\d\d:[\d.]+\s+\d+ \S+:\d+\] |"
    r"Bus error|\bcannot\b|\bCannot\b|\bunable to\b|\bUnable to\b|"
    # a Databricks notebook's word that its driver died under it (`The spark driver has
    # stopped unexpectedly and is restarting.`): a failure, its cause not said
    r"\bThe spark driver has stopped unexpectedly\b|"
    r"Evicted|\bevicted\b|\b(?:is|was|been)(?: \w+ly)? preempted\b|out of memory|[Tt]imed out|"
    # a supervisor that stopped the job because a component went silent (Sample Factory's
    # `Stopping training due to lack of heartbeats from <class …InferenceWorker>`)
    r"\b(?:due to|because of) (?:a )?(?:lack of|missing|missed|no) heartbeats?\b|"
    r"(?:terminated|killed) (?:with|by) (?:unknown )?signal|"
    # a launcher's word on a child that ended badly (Lightning's `Child process with PID 23026
    # terminated with code 1. Forcefully terminating all other processes`)
    r"\b[Pp]rocess (?:with PID )?\d+ terminated with (?:exit )?code -?[1-9]\d*\b|"
    # libfabric's providers log a failed completion from their error handler at `<warn>`
    r"\blibfabric:\S*_error\(\):\d+<warn>|"
    # TensorFlow's collective executor: `Collective ops is aborted by: Shape mismatch in …`
    r"\bCollective ops is aborted by:|"
    # a bind that gave up, a link that gave up, a memory monitor's kill, a reclaim notice
    + _BIND_GAVE_UP + r"|[Rr]etry count exceeded|"
    # ... in Open MPI's openib, oneCCL's and RCCL's words
    r"retry count between two MPI processes has been\b|\|CCL_ERROR\||"
    r"socket(?:Poll|Start)Connect: exceeded (?:retries|timeouts)|" + _MEMORY_MONITOR_KILL + "|"
    + _RECLAIM_NOTICE + "|"
    r"\bSIG(?:KILL|SEGV|ABRT|BUS)\b|memory(?:\+swap)?: usage \d+kB, limit|"
    r"\btime limit for job execution has been reached\b|"  # Open MPI's --timeout stop
    r"\bSXid \(PCI:[0-9a-fA-F:.]+\): \d+, Fatal\b|"  # an NVSwitch's fatal error (its driver)
    # Kubernetes' DisruptionTarget reasons (a pod ended from outside)
    r"\b(?:DeletionByPodGC|DeletionByTaintManager|EvictionByEvictionAPI|TerminationByKubelet)\b|"
    # UCX's words for an endpoint its transport gave up on (logged at DIAG or as `Fatal:`)
    r"\berror 'Endpoint timeout'|\bunhandled timeout error\b|"
    # a job that stops itself over a loss gone non-finite (the DeiT/MAE/DINO loops' `Loss is
    # nan, stopping training`, `Non-finite loss, exiting`)
    r"(?i:\b(?:loss\b.{0,40}\b(?:nan|inf(?:inite)?|non-finite)|(?:nan|inf|non-finite)\b.{0,40}"
    r"\bloss)\b.{0,40}\b(?:stopping|aborting|exiting)\b)|"
    # slurmctld's record of a job ended by a signal: `_job_complete: JobId=N WTERMSIG 9`
    r"\bWTERMSIG \d+|"
    # ssh's report that it could not get to a host (`ssh: connect to host H port 22: …`)
    r"\bssh: (?:connect to host|Could not resolve)|"
    # the node's own end and its clock refused, in words wider than the families read above
    # (a kernel panic, a reboot, a power-off are among _STOPPED_BY_PLATFORM's, at the end)
    r"\bPower Supply AC lost\b|\bcritical temperature reached\b|"
    r"\|\s*Memory\b[^|]*\|\s*Uncorrectable ECC\b|\bcould not select device driver\b|"
    r"\bRequestTimeTooSkewed\b|\bcertificate is not yet valid\b|"
    # Hydra's hint, printed only when the job it ran failed (its `ERROR=1` is taken out as a
    # counter's before this reads it)
    r"\bHYDRA_FULL_.{0,10}for a complete stack trace\b|"
    # curl's own error line (`curl: (6) Could not resolve host: files.example`)
    r"\bcurl: \(\d+\) |"
    # Open MPI's word that it ends the job (`*** Your MPI job will now abort.`, `MPI_ABORT was
    # invoked on rank 0 …`, `Local abort before MPI_INIT completed`)
    r"\*\*\* Your MPI job will now abort|processes in this communicator will now abort|"
    r"\bMPI_ABORT was invoked on rank \d+ in communicator \S+ with errorcode [1-9]|"
    r"\bLocal abort (?:before|after) MPI_(?:INIT|FINALIZE)\b|\b[A-Z][A-Z0-9]*_ASSERT: \S+:\d+|"
    r"\bfunction was called (?:before MPI_INIT|after MPI_FINALIZE) was invoked\b|"
    # schedulers' and container runtimes' own words for a job they ended (PBS, Flux, HTCondor,
    # SageMaker, a container's exit code, its OOMKilled state in JSON)
    r"=>> PBS: job killed:|\bjob\.exception (?:\S+ )?type=|\bvia condor_rm\b|"
    r"\bgone over (?:the )?(?:cgroup )?memory limit\b|"
    r"\"SecondaryStatus\":\s*\"(?:MaxRuntimeExceeded|Interrupted|Failed)\"|"
    # Slurm's job state, cgroup v2's OOM kill count, earlyoom's alarm (their words read above)
    r"\bOUT_OF_ME(?:MORY\b|\+)|^\s*oom_kill [1-9]\d*\s*$|\blow memory! at or below SIG|"
    r"\bSystem OOM encountered\b|"
    r"\"OOMKilled\":\s*true\b|\"reason\":\s*\"OOMKilled\"|\bexited with code (?!1[34]0\b|143\b)[1-9]\d*\b|"
    r"\bis unresponsive\b|\bnode has died\b|\bdue to failure of node\b|"
    + _SCRIPT_NOT_OPENED + "|"
    # LSF's end-of-job reason, Grid Engine's memory limit (their words read in the families
    # above)
    r"(?:^\s*|; )TERM_[A-Z_]+: job\b|\bexceeds job hard limit\b|"
    r"\bmemory limits?\b.{0,120}\bKilling container\b|"
    r"\bKubeletNotReady\b|\bPLEG is not healthy\b|\bnode down: |"
    r"\bis running on degraded hardware\b|"
    # Slurm's state of a job that did not end well (scontrol's `JobState=…`, sacct's column)
    r"\bJobState=(?:NODE_FAIL|BOOT_FAIL|PREEMPTED|TIMEOUT|DEADLINE|CANCELLED|FAILED)\b|"
    r"\b(?:NODE|BOOT)_FAIL\b|"
    + _AMDGPU + "|" + _DRM_GPU_HANG + "|" + _POWER_OFF + "|" + _STOPPED_BY_PLATFORM)
# Lines that are no failure whatever they mention: warnings, retries still under way, and
# what the writer logged at INFO or DEBUG (NCCL's "Plugin load returned 2 : … cannot open
# shared object file" on every healthy job without a network plugin).
_BENIGN = re.compile(
    r"(?i:warning:|deprecat|will retry|retrying)|"
    # a search that tries sizes until one fits (Lightning's batch-size finder: `Batch size 256
    # failed, trying batch size 192`)
    r"\bBatch size \d+ failed, trying batch size \d+|"
    # TensorFlow's allocator in a run that goes on (`… ran out of memory trying to allocate
    # 2.26GiB … The caller indicates that this is not a failure, but may mean …`)
    r"The caller indicates that this is not a failure|"
    # ... and its dataset's iterator torn down at the interpreter's exit, after the run
    # (`W …generator_dataset_op.cc:108] Error occurred when finalizing GeneratorDataset
    # iterator: FAILED_PRECONDITION: Python interpreter state is not initialized`)
    r"\bError occurred when finalizing GeneratorDataset iterator\b|"
    # huggingface_hub's backoff: `'(ReadTimeoutError(…))' thrown while requesting HEAD https://…`,
    # then `Retrying in 1s [Retry 1/5].` (its last try's failure is raised as an exception)
    r"' thrown while requesting [A-Z]+ https?://|"
    # vLLM's and SGLang's stamp at WARNING (`WARNING 07-23 10:11:12 scheduler.py:1481] Sequence
    # group 87 is preempted by PreemptionMode.RECOMPUTE …`: its scheduler's routine note)
    r"\bWARNING \d\d-\d\d \d\d:\d\d:\d\d\b|"
    # SGLang's scheduler retracting requests to free its KV cache, and going on (`Decode out
    # of memory happened. #retracted_reqs: 3`)
    r"\bDecode out of memory happened\b|"
    r"\b(?:INFO|DEBUG|TRACE)\b[ :\]]|"
    # UCX's own level column (`UCX  WARN  IB: ibv_fork_init() was disabled or failed, …`)
    r"\bUCX\s+(?:WARN|INFO|DEBUG|TRACE)\b|"
    # gloo's connect debug logger, at ERROR for every attempt (`failed to connect,
    # willRetry=1, retry=1, …`): an attempt it will make again
    r"\bwillRetry=1\b|"
    # a logger's level as a field between bars (loguru's `| WARNING  | mod:fn:42 - …`,
    # fairseq's `| WARNING | fairseq.trainer | OOM: …`)
    r"\|\s*WARNING\s*\||"
    # the dynamic loader's own word that it went on without a preload (`ERROR: ld.so: object
    # '…libjemalloc.so.2' from LD_PRELOAD cannot be preloaded (…): ignored.`)
    r"\bfrom LD_PRELOAD cannot be preloaded\b.*: ignored\.|"
    # glog's and absl's stamp at WARNING (`W0522 07:00:02.100102 1 pinned_memory_manager.cc:273]
    # …`: Triton's, TensorFlow's, XLA's own warnings)
    r"^W\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w./-]+:\d+\] |"
    # Rust tracing's level column at WARN (text-generation-inference's router and launcher:
    # `2024-05-10T08:31:12.012311Z  WARN text_generation_router::server: …`)
    r"^\d{4}-\d\d-\d\dT[\d:.]+Z\s+WARN\s|"
    # Triton's HTTP/gRPC front end answering one client's request with an error (`E0901 …
    # http_server.cc:3413] [request id: <id_unknown>] failed to parse the request JSON
    # buffer`): that request's error, the server goes on
    r"^E\d{4} [\d:.]+\s+\d+ (?:http|grpc)_server\.cc:\d+\] \[request id: [^\]]*\] |"
    # the kernel's note of corrected machine checks and memory errors (EDAC's `1 CE memory read
    # error`): corrected, the node goes on
    # the kernel's note that it loaded an unsigned out-of-tree module (nvidia, nvidia-peermem:
    # `module verification failed: signature and/or required key missing - tainting kernel`)
    r"\bmodule verification failed: signature and/or required key missing - tainting kernel\b|"
    # ... and nvidia-peermem's load on a kernel without the peer-memory API (no GPUDirect RDMA;
    # NCCL goes on without it): `nvidia-peermem nv_mem_client_init:414 ERROR detected invalid
    # context, skipping further initialization`
    r"\bnv_mem_client_init:\d+ ERROR detected invalid context, skipping further initialization\b|"
    r"\bMachine check events logged\b|\bEDAC MC\d+: \d+ CE\b|\bHANDLING MCE MEMORY ERROR\b|"
    # and a PCIe link's corrected errors (AER's `PCIe Bus Error: severity=Corrected, …`)
    # (the kernel's 6.x words: `severity=Correctable`, `AER: Correctable error message …`)
    r"\bseverity=Correct(?:ed|able)\b|\bAER: (?:Multiple )?Correct(?:ed|able) error\b|"
    # Open MPI's count of the processes that printed a help message already shown once
    # (`[n1:41822] 15 more processes have sent help message help-mpi-btl-openib.txt / error in
    # device init`) and its note on seeing them all: the message above is what to judge
    r"\bmore process(?:es)? ha(?:s|ve) sent help message\b|\bto see all help / error messages\b|"
    # ... and its note that a transport found no interfaces on a host (`btl:no-nics`, then
    # `Another transport will be used instead`); where none is left, its own error follows
    r"\bwas unable to find any relevant network interfaces:|"
    # a field of `nvidia-smi -q` whose count or answer is none (`SRAM Uncorrectable   : 0`,
    # `Remapping Failure Occurred : No`)
    r"^\s+[A-Z][\w ()/-]*?\s+: (?:0|No|None|N/A)\s*$|"
    r"^\s+(?:[A-Z]\w* )?Correctable(?: Errors?)?\s+: \d+\s*$|"
    # c10d's notes on a host without IPv6 (every start prints them; IPv4 is used)
    r"\[c10d\] The (?:server socket cannot be initialized on \[::\]:\d+ \(errno: 97|"
    r"IPv6 network addresses of |"
    r"client socket cannot be initialized to connect to \[[^\]]+\]:\d+ \(errno: 97)|"
    # an optional probe of a device's counter the board does not have
    r"NVMLError_NotSupported|"
    # NCCL's probe for InfiniBand's library on a host without it: it goes on over sockets
    # (`NCCL WARN Failed to open libibverbs.so[.1]`, then `Using network Socket`); where it
    # needed IB, its own error follows
    r"\bNCCL WARN Failed to open libibverbs\.so\b|"
    # glog's INFO/DEBUG stamp, unless the message carries an error level of its own (a
    # program's `slurmstepd: error:`, a CLI's `Run failed with error code …`) or is a
    # Python exception's own line (`train.py:42] RuntimeError: The server socket has failed …`;
    # a Go program's INFO line naming an error type is its report, not a failure)
    r"^\W*[ID]\d{4} \d\d:(?!.*\b(?:ERROR|FATAL|CRITICAL)[:\]]|.*\b[\w.-]+: error: |"
    r".*\bRun failed with error code\b|[^\]]*\.py:\d+\] [A-Z][\w.]*(?:Error|Exception): )|"

    # c10d's client socket still retrying its connect (`[W socket.cpp:663] [c10d] The client
    # socket has failed to connect to …`): the exception after the retries reports it if they
    # give up; a healthy start prints these while the store comes up
    r"\[W(?:\d{4} [\d:.]+)? socket\.cpp:\d+\] \[c10d\] The client socket has failed to connect|"
    # slurmstepd's note on jobs that end well too (page cache counts against the limit)
    r"Exceeded (?:job|step) memory limit at some point|"
    # Ray's GCS on any node it removes, a scale-down's included: whether actors died with it
    # is told by their own lines
    r"\bNode [0-9a-f]{28,} failed, (?:reconstructing actors|rescheduling the placement groups)")
# Phrases that mention failure without being one (counters, options, "no error"): taken out
# before the gate, so that a line failing elsewhere still counts (gloo's "connectFullMesh
# failed with [pair.cc:144] no error").
_NOT_FAILURE = re.compile(
    r"(?i:error[_ ]?(?:rate|count|s?=|\s*:\s*0\b)|errors?: none|no errors?\b|"
    r"ignore_errors|errors='|on_error|\b0 (?:failed|errors?)\b|"
    r"failed[\w ]{0,20}[:=]\s*(?:0|none)\b)")

# Preemption named as one possibility among others is no evidence of one (JAX's coordination
# service: "the remote task has failed, got preempted, or crashed unexpectedly").
_MAYBE_PREEMPTED = re.compile(r"(?i:(?:may|might|could)(?: have)?(?: been| got)? preempted|"
                              # TF's `This may be due to a preemption in a connected worker`
                              r"(?:may|might|could) be (?:due to|caused by|the result of) "
                              r"(?:a |the )?preemption|possibly (?:due to|caused by) "
                              r"(?:a |the )?preemption|"
                              r"(?:got |been |was )?preempted,? or\b|\bor (?:got |been |was )?"
                              r"preempted|"
                              # JAX's `Either the leader task was preempted/died/restarted
                              # unexpectedly or this task is experiencing network issues`
                              r"(?:was |got |been )?preempted/\w+|"
                              # nor a poller that could not ask for a preemption notice (JAX's
                              # `…/preemption/preemption_sync_manager.cc:170] Failed to retrieve
                              # preemption notice from coordination service`)
                              r"\S*/preemption/preemption_sync_manager\.cc:\d+\]|"
                              r"\bpreemption notice\b)")
# Nor is any cause a message lists as one possibility ("Termination is unexpected. Possible
# reasons include: (1) SIGKILL by the user or system OOM killer, (2) …"): the rest of the line
# is its writer's guesses.
_POSSIBLE_CAUSES = re.compile(r"(?i:\bassuming that the error is not caused by\b).*|"
                              r"(?i:\b(?:possible|potential|common|likely) (?:reasons?|causes?)"
                              r"(?: (?:include|includes|are|is|could be))?\s*:).*")
# JAX's coordination service's barrier at the end of the job (`Shutdown barrier has failed`,
# `Barrier timed out. Id: Shutdown::0`)
_AT_SHUTDOWN = re.compile(r"\bShutdown barrier\b|\bId: Shutdown::\d")
# TensorFlow's and JAX's distributed runtime name a process `/job:worker/replica:0/task:37`
_TASK = re.compile(r"/job:\w+/replica:\d+/(task:\d+)\b")
# gRPC's report of the far end of a failed call: `… from remote target /job:ps/replica:0/task:0`
_REMOTE_TARGET = re.compile(r"\bremote target (/job:\w+(?:/replica:\d+)?/task:\d+)")
# XLA's coordination service on a barrier that timed out: the task that reached it first
_FIRST_AT_BARRIER = re.compile(r"The first task at the barrier: /job:\w+/replica:\d+/task:\d+")
# The other end named by its host name: Open MPI's `peer: NAME`, ssh's `Could not resolve
# hostname NAME`, an RPC agent's `request #0 to NAME: ECONNREFUSED`, libfabric EFA's `Peer
# host id: i-0ce6…`
_PEER_NAME = re.compile(r"\bpeer: ([A-Za-z][\w.-]*\w)|\bRemote host: +([A-Za-z][\w.-]*\w)|"
                        r"[Cc]ould not resolve (?:hostname |host: ?)"
                        r"([A-Za-z][\w.-]*\w)|\brequest #\d+ to ([A-Za-z][\w.-]*\w):|"
                        r"\bPeer host id: ([\w.-]*\w)|"
                        # gRPC's resolver (`DNS resolution failed for ray-head.svc:6379`)
                        r"\bDNS resolution failed for ([A-Za-z][\w.-]*\w)")
# oneCCL stamps its lines `2024:05:29-19:16:18:(202165) |CCL_ERROR|`
# (never the launcher's own: torchrun's agent names itself when a stop reaches it (`SignalException:
# Process 534 got signal: 15`) and the workers it stops (`Sending process 587 closing signal`))
_PID = re.compile(r"(?i:\bpid[ =:]*)(\d{2,8})\b|\bKilled process (\d+)|"
                  r"(?<!Sending )\b[Pp]rocess (\d{3,8})\b(?! got signal| closing signal)|"
                  r":\((\d{2,8})\) \|CCL_|"
                  # the kernel's segfault report names the process as `python[901244]:`
                  r"\b(?:python[\d.]*|pt_main_thread|pt_data_worker|torchrun)\[(\d{2,8})\]: "
                  r"segfault at\b")
# (an address or port that ends a sentence is still whole: `… at 10.0.0.1:6379.`; c10d's
# socket names its ends in brackets, IPv4-mapped or not: `remote=[::ffff:10.0.0.1]:29500`,
# `[10.0.0.1]:29500`, whose port is the endpoint's too)
_IPV4 = re.compile(r"(?<![\d.])(?P<bracket>(?<=\[)|(?<=\[::ffff:))?(?P<addr>\d{1,3}(?:\.\d{1,3}){3})"
                   r"(?::(?P<port>\d{2,5})|<(?P<nccl_port>\d{2,5})>|"
                   r"(?(bracket)\]:(?P<bracket_port>\d{2,5})|(?!)))?(?!\d|\.\d)")
_DEVICE = re.compile(r"\b(mlx5_\d+|efa_\d+|ib[a-z]?\d+|hfi1_\d+|bnxt_re\d+)\b")
# torch.multiprocessing.spawn names its workers by index: `process 2 terminated with signal …`;
# Paddle's launcher its containers: `Container rank 0 status failed cmd […] code -9`
_SPAWNED = re.compile(r"\b([Pp]rocess \d{1,2}) terminated with\b|"
                      r"\b(Container rank \d+) status failed\b")
# A container that ended, in Docker's words: compose's `trainer-1 exited with code 137`, and
# `docker ps -a`'s row, whose last column names it (`… Exited (139) 12 minutes ago … trainer`)
_CONTAINER = re.compile(r"^([\w.-]+[-_]\d+) exited with code \d+\s*$|"
                        r"\bExited \(\d+\) \S.*?\s{2,}(?:\S+\s{2,})?([\w.-]+)\s*$")
# Open MPI prefixes its own messages with the process they are about: `[h16n18:57926] …`
_OMPI_PROCESS = re.compile(r"^\[[A-Za-z][\w.-]*:(\d{2,8})\] ")
# Workers a platform names by its own index: Spark's executors (`Lost executor 7 on HOST:`,
# `ExecutorLostFailure (executor 12 exited …`), a TPU VM's worker in gcloud's report
# (`Command execution on worker 3 failed`), PBS's sister node (`node 18 (n314) requested job
# terminate`)
_PLATFORM_WORKER = re.compile(r"\bLost (executor \d+)(?: on ([\w.-]*\w))?|"
                              r"\bExecutorLostFailure \((executor \d+)\b|"
                              r"\bCommand execution on (worker \d+) failed\b|"
                              r"\bnode \d+ \(([\w.-]+)\) requested job terminate\b|"
                              # MPICH's Hydra proxy (`unable to connect from "node01" to
                              # "node04"`): the far end
                              r"\bunable to connect from \"[^\"]+\" to \"([^\"]+)\"")
# Go: the endpoint (an IPv6 one in brackets: `dial tcp [fd00::1]:443`)
_DIALED = re.compile(r"\bdial (?:tcp|udp)[46]? (\[[0-9A-Fa-f:.]+(?:%[\w.-]+)?\]:\d{1,5}|[^\s:]+:\d{1,5})\b")
# The two ends of a failed call where the line names both: Hadoop IPC's `Call From trainer-0/
# 10.42.1.17 to namenode-0.hdfs:8020 failed`, Go's resolver's `lookup minio.svc on
# 10.96.0.10:53: no such host` (the name looked up, and the DNS server asked)
_FAR_END = re.compile(r"\bCall From \S+ to ([\w.-]+:\d{1,5}) failed\b|\blookup ([\w.-]+) on \S+: ")
_NEAR_END = re.compile(r"\bCall From (\S+) to [\w.-]+:\d{1,5} failed\b|"
                       # (with the resolver's own socket: `read udp 10.1.0.5:41223->10.0.0.10:53`)
                       r"\blookup [\w.-]+ on (\S+:(?: (?:read|write) udp \S+->\S+)?)")
# Java's socket address (InetSocketAddress): `kafka-0.data.svc/10.42.7.3:9092`, the name the
# program asked for before the address it resolved to
_JAVA_ADDRESS = re.compile(r"(?<![\w./-])([A-Za-z][\w-]*(?:\.[\w-]+)*)/(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})\b")
# syslog's and journald's short form name the machine after the time: `Jan 30 10:33:08 node17
# kernel: …`, `… systemd-logind[812]: …`
_SYSLOG_HOST = re.compile(r"(?<![\w:.-])(?:[A-Z][a-z]{2} +\d{1,2}|\d{4}-\d\d-\d\dT?) ?\d\d:\d\d:\d\d\S* "
                          r"(?!(?:INFO|WARN|WARNING|ERROR|DEBUG|FATAL|CRITICAL|TRACE) )"
                          r"([A-Za-z][\w.-]*\w) (?:kernel|systemd[\w-]*|[\w.-]+\[\d+\]):? ")
# (Open MPI's `Local host:` is the reporter of a failed connection, never its far end)
# (a name ends in a letter or digit: `… on node gpu-17.` names gpu-17, not `gpu-17.`)
_NODE = re.compile(r"(?<!Local )\b(?:node|host|hostname|Node|Host)[ =:]+(?!EC2\b)"
                   r"([A-Za-z][\w.-]*\d(?:[\w.-]*\w)?)|"
                   # the clouds' names for a VM: AWS's `Host EC2 (instance i-0a1b…) terminated`,
                   # Google Cloud Batch's `zones/us-central1-a/instances/7306941512398174062`,
                   # Vertex AI's `The replica workerpool0-0 …`
                   r"\(instance (i-[0-9a-f]{8,17})\)|\bzones/[\w-]+/instances/([\w-]+)|"
                   r"\b[Tt]he replica (workerpool\d+-\d+|(?:master|worker|ps|evaluator) \d+)\b|"
                   # Ray names a node by its id: `Node 3ddf…5ee4 failed`, `node id = 3ddf…`
                   r"\b[Nn]ode(?: id)?[ =:]+([0-9a-f]{40}(?:[0-9a-f]{16})?)\b|"
                   # kubectl's name of an event's node (`node/ip-10-0-1-7.ec2.internal`;
                   # one that ends a sentence, `… node/ip-10-0-1-7.ec2.internal.`, too)
                   r"(?<![\w/\[])node/([a-z0-9][\w.-]*\w)(?![\w/-]|\.\w)|"
                   # the schedulers' names of a node they lost: Flux's `node failure on
                   # tioga17 (rank 3)` and (before v0.63) `lost contact with job shell on broker
                   # corona212 (rank 5)` (a broker's rank, not the job's), PBS's `Job deleted,
                   # execution node gn018 down`, HTCondor's slot `slot1_1@node17.cluster`
                   r"\b(?:node failure on|job shell on broker|execution node) ([A-Za-z][\w.-]*\w)"
                   r"(?= \(rank \d+\)| down\b)|\bslot\d*(?:_\d+)?@([A-Za-z][\w-]*)")
# kubectl's names of an event's pod (`pod/w-3`; not `kubectl logs --prefix`'s
# `[pod/w-3/pytorch]` on every line) and of a pod it deleted (`pod "w-3" deleted`)
_POD_OBJECT = re.compile(r"(?<![\w/\[])pod/([a-z0-9][\w.-]*\w)(?![\w/-]|\.\w)|^pod \"([\w.-]+)\" deleted\b")
# "… on rank 3", or a line that opens with "Rank 3," (after a logger's "ERROR:name:" too)
# PSM's and Intel MPI's `host:rank1: …`, `host:rank1.prog: …` too
# (PETSc prefixes each of its error lines with the rank in its world: `[0]PETSC ERROR: Caught
# signal number 11 SEGV`)
_SELF_RANK = re.compile(r"\b(?:on|for|of) [Rr]ank (\d+)\b|(?:^|:)\W*Rank (\d+)[,:]|"
                        r"(?:^|\s)\W*(?:\[[\d.]+\] )?[\w-]+:rank(\d+)[.:]|"
                        r"^\s*\[(\d+)\]PETSC ERROR: ")
_PCI = re.compile(r"\b([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)\b")
# the NVIDIA driver names a GPU it could not bring up by its device minor (/dev/nvidiaN)
_GPU_MINOR = re.compile(r"\bdevice bearing (minor number \d+)")


@dataclass(frozen=True)
class Reading:
    """What the lexicon reads in one line: its family and where the line says it happened."""

    family: Family
    word: str  # the words that decided it
    where: tuple[str, ...]  # pids, addresses, devices the line names


# Every line `_FAILED` matches holds one of these: a plain substring test first keeps the
# regular expressions off the ordinary lines of a tail (progress, INFO), about 20x cheaper.
# (a loss gone non-finite is read by its `stopping`, `exiting`, `aborting`; a literal another
# one already holds is left out: each is one more pass over every tail line)
_FAILED_LITERALS = ("rror", "RROR", "FATAL", "CRITICAL", "xception", "Exit", "ailed", "AILED",
                    "forrtl: severe",
                    "Killed", "Aborted", "core dumped", "Segmentation", "annot", "nable to",
                    "No space", "quota", "Input/output", "Read-only", "victed", "preempted",
                    "out of memory", "imed out", "signal", "SIG", "topping", "xiting", "borting",
                    ", Fatal", "Endpoint timeout", "DeletionBy", "EvictionByEvictionAPI",
                    "TerminationByKubelet", "usage", "amdgpu", "[drm]", "ower", "ssh: ", "xceed",
                    "for bind", "memory pressure", "imminent", "Assertion fail", "terminated with",
                    "abort", "MPI_ABORT", "was invoked", "_ASSERT: ", "Segfault", ": F ", "halted",
                    "Pod was", "reempted by", "deadline", "condition: [", "MPI processes has been",
                    "PBS: job killed", "condor_rm", "is unresponsive", "node has died",
                    "setting DOWN", "failure of node", "exited with code", "SecondaryStatus",
                    "gone over", "TERM_", "wallclock", "hard limit", "maximum execution",
                    "user delete", "shepherd died", "Host EC2", "maximum runtime", "VM updates",
                    "open file", "time limit for job", "Preempted in", "scale down",
                    "Interruption triggered", '" deleted', "compute.instances.", "curl: (",
                    "OUT_OF_ME", "Killing container", "NotReady", "PLEG", "node down", "degraded hardware", "JobState=", "_FAIL", "oom_kill", "System OOM", "Kernel panic", "critical temperature",
                    "PROTECTION shutdown", "Uncorrectable ECC", "reboot", '"Preempt"',
                    "Interrupted - ", "Exceeded - ", "Cluster terminated", "state: PREEMPTED",
                    "stopped unexpectedly", "disk space")


# A retry that says it has more to go (`grpc error:Connect Failed, retry 1/10`)
_RETRY_COUNT = re.compile(r"(?i:\bretry(?:ing)?)\W{0,3}(\d+) ?/ ?(\d+)")
# a reader that skipped a corrupt input and went on (`cannot identify image file …; skipping`)
_SKIPPED = re.compile(r"(?i:\bskipping\b|replaced with)")


def _retries_left(text: str) -> bool:
    m = _RETRY_COUNT.search(text)
    return (m is not None and int(m.group(1)) < int(m.group(2))
            and read_words(text).family in (Family.NETWORK, Family.FAILED, Family.INIT_TIMEOUT))


def _skipped_bad_input(text: str) -> bool:
    return _SKIPPED.search(text) is not None and read_words(text).family is Family.DATA


# Sentences only an error prints, whatever else the line mentions: DDP's unused-parameter
# error, also where a paste kept only its tail (`… set the environment variable
# TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out information about which
# particular parameters did not receive gradient on this rank as part of this error`); its
# healthy warning says "did not find any unused parameters" instead
_ERROR_ONLY = re.compile(r"\bExpected to have finished reduction in the prior iteration\b|"
                         r"\bdid not receive grad(?:ient)? (?:for rank \d+|on this rank)\b")


# a shell's trace of a command it runs (`set -x`: `+ grep -E 'NET/IB : …' train.log`)
SHELL_TRACE = re.compile(r"^\+{1,3} \S")


# a platform's verdict on the whole application, logged at INFO (Spark's ApplicationMaster,
# its scheduler on one of the application's jobs)
_VERDICT_AT_INFO = re.compile(r"\bFinal app status: FAILED\b|\bDAGScheduler: Job \d+ failed: |"
                              # Intel Fortran's runtime ending the process, whatever stamps
                              # the line (`forrtl: severe (38): error during write, …`)
                              r"\bforrtl: severe \(\d+\): ")


def looks_failed(text: str) -> bool:
    """True when a line reports a failure (before any family is read into it)."""
    if SHELL_TRACE.match(text) is not None:
        return False
    if ("grad" in text or "reduction" in text) and _ERROR_ONLY.search(text) is not None:
        return True
    if any(literal in text for literal in _FAILED_LITERALS) and (
            _VERDICT_AT_INFO.search(text) is not None
            or (_BENIGN.search(text) is None
                and _FAILED.search(_NOT_FAILURE.sub(" ", text)) is not None
                and not _retries_left(text) and not _skipped_bad_input(text))):
        return True
    return _ray_error_with_words(text)


def logged_below_error(text: str) -> bool:
    """True for a line its writer logged as a warning, a retry or at INFO/DEBUG: a record of
    its own, never the rest of an error's report."""
    return _BENIGN.search(text) is not None


def _ray_error_with_words(text: str) -> bool:
    """A line Ray logged at ERROR or FATAL whose words say what failed (see below)."""
    return ((" E " in text or " F " in text) and _RAY_ERROR_STAMP.search(text) is not None
            and read_words(text).family is not Family.FAILED)


# Ray's C++ stamp for a line logged at ERROR or FATAL (`[2025-11-20 08:14:04,892 E 18591
# 18625] (raylet) …`): a failure only where its words say what of (a full disk), since Ray
# logs routine shutdown notes at E too
_RAY_ERROR_STAMP = re.compile(r"\[\d{4}-\d\d-\d\d [\d:,.]+ [EF] \d+ \d+\]")


# The platform's own word that it stopped a machine or a pod under the job
_FROM_OUTSIDE = re.compile(_STOPPED_BY_PLATFORM + "|" + _RECLAIM_NOTICE + "|" + _POWER_OFF + "|"
                           + _RECLAIM_WORDS + r"|\b[Ee]victed\b|(?i:\bpreempted\b)|"
                           r"\bNodeNotReady\b|\bNODE_FAIL\b")


def stops_from_outside(text: str) -> bool:
    """Whether a line is the platform's word that it stopped a machine or a pod."""
    return _FROM_OUTSIDE.search(text) is not None


_PLATFORM_VERDICT_RE = re.compile(_PLATFORM_VERDICT)


def platform_verdict(text: str) -> bool:
    """Whether a text carries a managed platform's own verdict on the job (out of capacity,
    its own internal error)."""
    return _PLATFORM_VERDICT_RE.search(text) is not None


def read_line(text: str) -> Reading | None:
    """The most explanatory family a failing line belongs to; None for a line that is no
    failure."""
    if not looks_failed(text):
        return None
    return read_words(text)


def words_family(text: str) -> Family:
    """The family a text's words name (FAILED when none), whether or not it failed."""
    return read_words(text).family


# a traceback frame's file and function (`File "…/scheduler.py", line 1204, in
# _preempt_by_swap`): code's names, not what happened
_FRAME = re.compile(r'\bFile "[^"]{0,300}", line \d+, in [\w<>.]+')


def read_words(text: str) -> Reading:
    """The family a line's words name (FAILED when none), whether or not the line failed (a
    client's warning that it will try a refused connect again)."""
    told = _POSSIBLE_CAUSES.sub(" ", _MAYBE_PREEMPTED.sub(" ", _FRAME.sub(" ", text)))
    for family, pattern in _WORDS:
        if family is Family.INIT_TIMEOUT and _AT_SHUTDOWN.search(told) is not None:
            continue  # a barrier at the job's end is no start-up wait
        m = pattern.search(told)
        if m is not None:
            return Reading(family, m.group(0), places(text))
    return Reading(Family.FAILED, "", places(text))


# Azure ML's name for the process whose exit it reports (`Execution failed. User process 'Rank
# 3' exited with status code 1. … Error: <its stderr's tail>`): the job's global rank, as its
# `user_logs/std_log_process_3.txt`
_SERVICE_RANK = re.compile(r"\bUser process 'Rank (\d+)' exited with status code\b")


def service_named_rank(text: str) -> int | None:
    """The rank a managed service's verdict says exited (Azure ML's `User process 'Rank 3'`)."""
    m = _SERVICE_RANK.search(text)
    return int(m[1]) if m is not None else None


def self_named_rank(text: str) -> int | None:
    """The rank a failing line says the failure happened on ("… on rank 3", "Rank 3, …")."""
    m = _SELF_RANK.search(text)
    return int(next(g for g in m.groups() if g)) if m is not None else None


def places(text: str) -> tuple[str, ...]:
    """Pids, IP addresses (with their port), network devices, PCI addresses, GPU minors,
    spawned workers' indices, dialled endpoints, nodes, TF/JAX tasks and peers' host names a
    line names, in the order they appear."""
    found: list[tuple[int, str]] = []
    for m in _PID.finditer(text):
        found.append((m.start(), next(g for g in m.groups() if g)))
    java = list(_JAVA_ADDRESS.finditer(text)) if "/" in text else []
    found.extend((m.start(), f"{m.group(1)}:{m.group(3)} ({m.group(2)})") for m in java)
    # the addresses Java's socket addresses resolved to, named with their names
    resolved = {m.start(2) for m in java}
    for m in _IPV4.finditer(text):
        if m.start() in resolved:
            continue
        port = m["port"] or m["nccl_port"] or m["bracket_port"]
        found.append((m.start(), f"{m['addr']}:{port}" if port else m["addr"]))
    # a task named in full by gRPC's remote target is not named again by its tail
    # (`/job:ps/replica:0/task:0` holds `task:0`); nor is the task XLA's coordination
    # service names as the first to reach a barrier that timed out (it came in time)
    skipped = [m.span() for m in _REMOTE_TARGET.finditer(text)] + [
        m.span() for m in _FIRST_AT_BARRIER.finditer(text)]
    for pattern in (_DEVICE, _PCI, _GPU_MINOR, _SPAWNED, _DIALED, _NODE, _REMOTE_TARGET, _TASK,
                    _SYSLOG_HOST, _OMPI_PROCESS, _CONTAINER):
        found.extend((m.start(), next(g for g in m.groups() if g)) for m in pattern.finditer(text)
                     if pattern is not _TASK or not any(a <= m.start() < b for a, b in skipped))
    found.extend((m.start(), next(g for g in m.groups() if g))
                 for m in _PEER_NAME.finditer(text))
    found.extend((m.start(), "pod " + next(g for g in m.groups() if g))
                 for m in _POD_OBJECT.finditer(text))
    found.extend((m.start(), " on ".join(g for g in m.groups() if g))
                 for m in _PLATFORM_WORKER.finditer(text))
    if "Call From " in text or "lookup " in text:
        # a failed call's near end (Hadoop IPC's caller, Go's DNS server) is no place of the
        # failure's; its far end comes first
        near = [m.span(m.lastindex or 0) for m in _NEAR_END.finditer(text)]
        found = [(at, w) for at, w in found if not any(a <= at < b for a, b in near)]
        found += [(-1, next(g for g in m.groups() if g)) for m in _FAR_END.finditer(text)]
    ordered = list(dict.fromkeys(w for _, w in sorted(found)))
    # (an endpoint named twice, once with the address it resolved to: the fuller once)
    fuller = {w.split(" (", 1)[0] for w in ordered if " (" in w}
    return tuple(w for w in ordered if w not in fuller)


def is_pci_address(text: str) -> bool:
    """Whether `text` starts with a PCI address (`0000:3b:00.0`): a device, not a process."""
    return _PCI.match(text) is not None


def node_names(text: str) -> tuple[str, ...]:
    """The nodes a line names (`failed on node gpu-17`), and the pods kubectl's events name
    (`pod w-3`), without its pids and addresses."""
    return tuple(dict.fromkeys([*(m.group(1) for m in _SYSLOG_HOST.finditer(text)),
                                *(next(g for g in m.groups() if g) for m in _NODE.finditer(text)),
                                *("pod " + next(g for g in m.groups() if g)
                                  for m in _POD_OBJECT.finditer(text))]))
