// What the supervisor reads of a stopped caller (included by exec-watch.c), in as few system calls
// as it can: each one is paid while the caller waits (docs/benchmarks.md, "bench:exec-watch").
// - its memory (a path, argv) with process_vm_readv, one call per string, no /proc/PID/mem to open
//   and close (that one only where process_vm_readv is refused);
// - its uid and parent through its pidfd (PIDFD_GET_INFO, Linux 6.13+; /proc/PID/status before);
// - the uid as it sees itself from the uid_map of its user namespace, read once per namespace and
//   kept with a descriptor of that namespace open (so its inode number cannot name another one).
#include <sys/uio.h>

// include/uapi/linux/pidfd.h of Linux 6.15 (the build host's headers may predate it).
struct pidfd_facts {
  __u64 mask, cgroupid;
  __u32 pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  __s32 exit_code;
  __u32 coredump_mask, spare1;
};
#define FACTS_PID (1ULL << 0)
#define FACTS_CREDS (1ULL << 1)
#define FACTS_EXIT (1ULL << 3)
#define PIDFD_GET_FACTS _IOWR(0xFF, 11, struct pidfd_facts)

// process_vm_readv refused here (ENOSYS; or EPERM where /proc/PID/mem then read the same process:
// an engine's seccomp profile): /proc/PID/mem from then on. EPERM alone is that process's (not
// dumpable, another user namespace's): /proc/PID/mem is tried for it and fails as well.
static int peek_refused;

/**
 * Up to `size` bytes of `pid`'s memory at `at` into `out`; the bytes read (-1: none). Split at the
 * page's end, so a range running into an unmapped page still gives the part before it.
 */
static ssize_t peek(int pid, unsigned long at, void *out, size_t size) {
  if (!at) return -1;
  size_t first = 4096 - (at & 4095);
  if (first > size) first = size;
  if (!peek_refused) {
    struct iovec local = {.iov_base = out, .iov_len = size};
    struct iovec remote[2] = {{.iov_base = (void *)at, .iov_len = first},
                              {.iov_base = (void *)(at + first), .iov_len = size - first}};
    ssize_t got = syscall(SYS_process_vm_readv, pid, &local, 1, remote, size > first ? 2 : 1, 0);
    if (got > 0) return got;
    if (got == 0 || (errno != ENOSYS && errno != EPERM)) return -1;
    if (errno == ENOSYS) peek_refused = 1;
  }
  int tried = !peek_refused;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", pid);
  int mem = open(path, O_RDONLY | O_CLOEXEC);
  if (mem < 0) return -1;
  ssize_t got = pread(mem, out, first, (off_t)at);
  if (got == (ssize_t)first && size > first) {
    ssize_t more = pread(mem, (char *)out + first, size - first, (off_t)(at + first));
    if (more > 0) got += more;
  }
  close(mem);
  if (got > 0 && tried) peek_refused = 1;
  return got > 0 ? got : -1;
}

/** A NUL-terminated string of the caller's memory (at most `cap` bytes): its length, -1: unread. */
static ssize_t peek_string(int pid, unsigned long at, char *out, size_t cap) {
  if (!at) return -1;
  ssize_t got = peek(pid, at, out, cap);
  if (got <= 0) return -1;
  char *end = memchr(out, 0, (size_t)got);
  return end ? end - out : got;
}

/**
 * `count` NUL-terminated strings of the caller's memory at `at[i]` into `out + i * cap`, their
 * lengths into `length[i]` (-1: unread): one process_vm_readv for all (each string split at its
 * page's end); a string past where that call stopped (an unmapped page) is read on its own.
 */
static void peek_strings(int pid, const unsigned long *at, int count, char *out, size_t cap,
                         ssize_t *length) {
  struct iovec local[2 * (ARGV_CAP + 1)], remote[2 * (ARGV_CAP + 1)];
  int parts = 0;
  for (int i = 0; i < count && !peek_refused; i++) {
    if (!at[i]) continue;
    size_t first = 4096 - (at[i] & 4095);
    if (first > cap) first = cap;
    local[parts] = (struct iovec){out + i * cap, first};
    remote[parts++] = (struct iovec){(void *)at[i], first};
    if (cap > first) {
      local[parts] = (struct iovec){out + i * cap + first, cap - first};
      remote[parts++] = (struct iovec){(void *)(at[i] + first), cap - first};
    }
  }
  ssize_t left = parts ? syscall(SYS_process_vm_readv, pid, local, parts, remote, parts, 0) : -1;
  for (int i = 0; i < count; i++) {
    char *text = out + i * cap;
    size_t got = 0;
    if (at[i] && left > 0) {
      got = (size_t)left < cap ? (size_t)left : cap;
      left -= (ssize_t)got;
    }
    char *end = got ? memchr(text, 0, got) : NULL;
    if (end) length[i] = end - text;
    else if (got == cap) length[i] = (ssize_t)cap;
    else length[i] = peek_string(pid, at[i], text, cap);  // not reached by the one call
  }
}

/** The caller's real uid and parent from its pidfd; 0 when the kernel cannot say (before 6.13). */
static int pidfd_facts(int pidfd, long *uid, long *ppid) {
  static int unsupported;
  if (pidfd < 0 || unsupported) return 0;
  struct pidfd_facts facts = {.mask = FACTS_PID | FACTS_CREDS};
  if (ioctl(pidfd, PIDFD_GET_FACTS, &facts) != 0) {
    if (errno == ENOTTY || errno == EINVAL) unsupported = 1;
    return 0;
  }
  if ((facts.mask & (FACTS_PID | FACTS_CREDS)) != (FACTS_PID | FACTS_CREDS)) return 0;
  *uid = facts.ruid, *ppid = facts.ppid;
  return 1;
}

#define USER_NS_CACHE 32
static struct user_ns {
  int fd;  // keeps the namespace (and so its inode number) alive
  ino_t ino;
  dev_t dev;
  int lines;
  long in[8], out[8], count[8];
} user_ns_cache[USER_NS_CACHE];
static int user_ns_used, user_ns_next;

/** `uid` as the process sees itself in the user namespace `theirs` (opened by `path`). */
static long uid_inside(int pid, long uid, const struct stat *theirs) {
  struct user_ns *found = NULL;
  for (int i = 0; i < user_ns_used && !found; i++)
    if (user_ns_cache[i].ino == theirs->st_ino && user_ns_cache[i].dev == theirs->st_dev)
      found = &user_ns_cache[i];
  if (!found) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/ns/user", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat held;
    // The namespace held open is the one stat'ed (the process could have changed it meanwhile).
    if (fd < 0 || fstat(fd, &held) != 0 || held.st_ino != theirs->st_ino) {
      if (fd >= 0) close(fd);
      return uid;
    }
    snprintf(path, sizeof path, "/proc/%d/uid_map", pid);
    ssize_t n = read_small(path, buf, sizeof buf);
    if (n <= 0) {
      close(fd);
      return uid;
    }
    int slot = user_ns_used < USER_NS_CACHE ? user_ns_used++ : (user_ns_next++ % USER_NS_CACHE);
    found = &user_ns_cache[slot];
    if (found->fd > 0) close(found->fd);
    *found = (struct user_ns){.fd = fd, .ino = held.st_ino, .dev = held.st_dev};
    for (char *at = buf, *end; found->lines < 8; at = end) {
      long in = strtol(at, &end, 10);
      if (end == at) break;
      found->in[found->lines] = in;
      found->out[found->lines] = strtol(end, &end, 10);
      found->count[found->lines++] = strtol(end, &end, 10);
    }
  }
  for (int i = 0; i < found->lines; i++)
    if (found->out[i] <= uid && uid < found->out[i] + found->count[i])
      return uid - found->out[i] + found->in[i];
  return uid;
}
