"""Run one program with no network and a read-only view of the filesystem (Linux).

Usage (by ``validate.py``, as a script, so nothing of docmentor is imported)::

    python -I -S validate_sandbox.py WRITABLE_DIR PROGRAM [ARGS...]

Unprivileged Linux namespaces, the same kernel feature ``unshare`` (util-linux) and
bubblewrap use, without needing either installed:

- a user namespace in which the caller's user id is mapped to itself (``root`` to
  ``nobody``, so a program started as root holds no capability inside either);
- a network namespace: only its own loopback interface (brought up, so a program can talk
  to a server it starts itself), no route to the host's ports or to other machines;
- a mount namespace in which every mount is remounted read-only, except a bind of
  ``WRITABLE_DIR`` (the example's folder) and a fresh ``tmpfs`` on ``/dev/shm``;
- a PID namespace whose first process runs PROGRAM and exits with it: then, or when it is
  killed, the kernel kills every process left in the namespace, including children that
  called ``setsid``.
  The launcher stays outside as its parent, and its death (``SIGKILL`` of its process
  group on a timeout) takes the namespace with it (``PR_SET_PDEATHSIG``).

Exit status: PROGRAM's (128 + signal when it was killed by one); 125 when the sandbox
could not be set up, with the failing step on stderr (``docmentor-sandbox: …``).
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import signal
import socket
import struct
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOSYMFOLLOW = 256
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MS_STRICTATIME = 1 << 24
PR_SET_PDEATHSIG = 1
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
NOBODY = 65534
SETUP_FAILED = 125

_libc = ctypes.CDLL(None, use_errno=True)


def _fail(step: str, errno: int | None = None) -> None:
    errno = ctypes.get_errno() if errno is None else errno
    sys.stderr.write(f"docmentor-sandbox: {step}: {os.strerror(errno)}\n")
    sys.stderr.flush()
    os._exit(SETUP_FAILED)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> int:
    def enc(value: str | None) -> bytes | None:
        return None if value is None else os.fsencode(value)

    result: int = _libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data))
    return result


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _unescape(field: str) -> str:
    """A mountinfo path: spaces, tabs, newlines and backslashes are octal escapes."""
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1 : i + 4].isdigit() and i + 4 <= len(field):
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def _locked_flags(options: str) -> int:
    """The per-mount flags a remount must repeat (a user namespace may not clear most of them)."""
    opts = set(options.split(","))
    flags = 0
    for name, bit in (
        ("nosuid", MS_NOSUID),
        ("nodev", MS_NODEV),
        ("noexec", MS_NOEXEC),
        ("nosymfollow", MS_NOSYMFOLLOW),
    ):
        if name in opts:
            flags |= bit
    if "noatime" in opts:
        flags |= MS_NOATIME
    elif "relatime" in opts:
        flags |= MS_RELATIME
    else:
        flags |= MS_STRICTATIME
    if "nodiratime" in opts:
        flags |= MS_NODIRATIME
    return flags


# Kernel interfaces, not storage: what a process without privileges may write there is
# nothing, or per-namespace; a remount these refuse is no hole.
_PSEUDO = frozenset(
    {"proc", "sysfs", "cgroup", "cgroup2", "binfmt_misc", "autofs", "nsfs", "debugfs", "tracefs",
     "securityfs", "pstore", "bpf", "fusectl", "configfs", "devpts", "mqueue", "hugetlbfs", "efivarfs"}
)  # fmt: skip


def _read_only_except(writable: str) -> None:
    """Every mount read-only but ``writable``; a storage mount that refuses ends the setup."""
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
        mounts = [line.split() for line in f if line.strip()]
    for fields in mounts:
        point, options = _unescape(fields[4]), fields[5]
        fstype = fields[fields.index("-") + 1] if "-" in fields[6:] else ""
        if point == writable or "ro" in options.split(","):
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | _locked_flags(options)
        if _mount(None, point, None, flags) != 0:
            errno = ctypes.get_errno()
            if point != "/" and (errno in (2, 13) or fstype in _PSEUDO):
                continue  # gone or hidden under another mount (unreachable), or not storage
            _fail(f"making {point} ({fstype or 'unknown'}) read-only", errno)


def _loopback_up() -> None:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            request = struct.pack("16sh14x", b"lo", 0)
            flags = struct.unpack("16sh14x", fcntl.ioctl(s, SIOCGIFFLAGS, request))[1]
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh14x", b"lo", flags | IFF_UP))
    except OSError:
        pass  # the program just cannot use loopback either


def _exit_as(status: int) -> None:
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


def _init(program: list[str]) -> None:
    """The namespace's first process: runs PROGRAM as its child, reaps orphans, exits with it.

    PROGRAM is not the first process itself, which the kernel shields from signals it has no
    handler for (an example that signals itself would behave differently).
    """
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(program[0], program)
        except OSError as error:
            sys.stderr.write(f"could not start {program[0]}: {error}\n")
            os._exit(127)
    while True:
        try:
            done, status = os.wait()
        except ChildProcessError:
            os._exit(SETUP_FAILED)
        if done == pid:
            _exit_as(status)  # the kernel then kills whatever is left in the namespace


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        sys.stderr.write("usage: validate_sandbox.py WRITABLE_DIR PROGRAM [ARGS...]\n")
        os._exit(2)
    writable, program = os.path.realpath(argv[0]), argv[1:]
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC
    if _libc.unshare(flags) != 0:
        _fail("creating namespaces (are unprivileged user namespaces allowed?)")
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid or NOBODY} {uid} 1\n")
        _write("/proc/self/gid_map", f"{gid or NOBODY} {gid} 1\n")
    except OSError as error:
        _fail("mapping the user id", error.errno or 0)
    if _mount(None, "/", None, MS_REC | MS_PRIVATE) != 0:
        _fail("making mounts private")
    if _mount(writable, writable, None, MS_BIND | MS_REC) != 0:
        _fail(f"binding {writable}")
    os.chdir(os.getcwd())  # onto the bind: the old working directory is the mount underneath
    _read_only_except(writable)
    if os.path.isdir("/dev/shm"):
        _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=1777")  # best effort
    _loopback_up()

    alive_r, alive_w = os.pipe()  # EOF on alive_r: the launcher is gone
    child = os.fork()  # the first process of the new PID namespace
    if child == 0:
        os.close(alive_w)
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.set_blocking(alive_r, False)
        try:
            if os.read(alive_r, 1) == b"":  # the launcher died before prctl: do not run on
                os._exit(SETUP_FAILED)
        except BlockingIOError:
            pass
        os.close(alive_r)
        # this namespace's own /proc where the kernel allows it (not under some containers)
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        _init(program)
    os.close(alive_r)
    # Told to stop: the namespace goes. (Its first process ignores signals it has no handler for,
    # SIGTERM too; SIGKILL from outside always ends it, and with it everything inside.)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda _signum, _frame: os.kill(child, signal.SIGKILL))
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except ChildProcessError:
            os._exit(SETUP_FAILED)
        except InterruptedError:
            continue
    _exit_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
