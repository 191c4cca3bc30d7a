// The exit statuses of the watched programs (included by exec-watch.c's supervisor). At each
// recorded execve the supervisor opens a pidfd of the caller (stopped in the call, so alive); when
// the process ends and its parent has reaped it, PIDFD_GET_INFO with PIDFD_INFO_EXIT (Linux 6.15+)
// gives its wait status, though the supervisor is not its parent: one {"kind":"exit"} line with pid,
// start, status (the exit code, or minus the signal number) and the time the pidfd said it ended.
// A process never reaped gives none (given up after EXIT_TRIES polls); an older kernel none at all.
#include <linux/types.h>
#include <sys/wait.h>

#define MAX_TRACKED 4096
#define EXIT_TRIES 600 /* × 100 ms after its end */

// include/uapi/linux/pidfd.h of Linux 6.15 (the build host's headers may predate it).
struct exit_info {
  __u64 mask, cgroupid;
  __u32 pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  __s32 exit_code;
  __u32 coredump_mask, spare1;
};
#define EXIT_INFO_EXIT (1ULL << 3)
#define EXIT_GET_INFO _IOWR(0xFF, 11, struct exit_info)

static struct tracked {
  int fd, pid, tries; /* tries: 0 while it runs, then polls since its end */
  char start[24];
  struct timespec ended;
} tracked[MAX_TRACKED];
static int tracked_count, exit_first, exit_mapped, exit_off;
static int exit_map[MAX_TRACKED];

/** Follows `pid` to its exit (once per process: a second execve keeps the first pidfd). */
static void track_exit(int pid) {
  if (exit_off || tracked_count >= MAX_TRACKED) return;
  for (int i = 0; i < tracked_count; i++)
    if (tracked[i].pid == pid) return;
  char path[64], buf[1024], *start = NULL;
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  if (read_small(path, buf, sizeof buf) <= 0) return;
  char *at = strrchr(buf, ')');
  int field = 0;
  for (char *tok = at ? strtok(at + 2, " ") : NULL; tok; tok = strtok(NULL, " "), field++)
    if (field == 19) {
      start = tok;
      break;
    }
  int fd = start ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
  if (fd < 0) return;
  struct tracked *next = &tracked[tracked_count++];
  *next = (struct tracked){.fd = fd, .pid = pid};
  snprintf(next->start, sizeof next->start, "%s", start);
}

/** Appends the running tracked processes' pidfds at fds[*count]; the poll's timeout. */
static int exit_pollfds(struct pollfd *fds, int *count) {
  int waiting = 0;
  exit_first = *count, exit_mapped = 0;
  for (int i = 0; i < tracked_count; i++) {
    if (tracked[i].tries) {
      waiting = 1;
      continue;
    }
    fds[(*count)++] = (struct pollfd){.fd = tracked[i].fd, .events = POLLIN};
    exit_map[exit_mapped++] = i;
  }
  return waiting ? 100 : -1;
}

/** After a poll: notes the ends it saw, records the statuses known by now. */
static void exit_collect(const struct pollfd *fds, struct record *record) {
  for (int k = 0; k < exit_mapped; k++)
    if (fds[exit_first + k].revents) {
      tracked[exit_map[k]].tries = 1;
      clock_gettime(CLOCK_REALTIME, &tracked[exit_map[k]].ended);
    }
  exit_mapped = 0;
  for (int i = 0; i < tracked_count; i++) {
    struct tracked *one = &tracked[i];
    if (!one->tries) continue;
    struct exit_info info = {.mask = EXIT_INFO_EXIT};
    int ok = ioctl(one->fd, EXIT_GET_INFO, &info) == 0;
    if (!ok && (errno == ENOTTY || errno == EINVAL)) exit_off = 1; // a kernel before 6.15
    int known = ok && (info.mask & EXIT_INFO_EXIT);
    if (!known && !exit_off && one->tries++ < EXIT_TRIES) continue;
    if (known) {
      int status = WIFEXITED(info.exit_code) ? WEXITSTATUS(info.exit_code)
                   : WIFSIGNALED(info.exit_code) ? -WTERMSIG(info.exit_code)
                                                 : info.exit_code;
      used = 0;
      putf("{\"kind\":\"exit\",\"pid\":%d,\"start\":\"%s\",\"status\":%d,\"t\":%ld.%06ld",
           one->pid, one->start, status, (long)one->ended.tv_sec, one->ended.tv_nsec / 1000);
      record_write(record);
    }
    close(one->fd);
    *one = tracked[--tracked_count];
    i -= 1;
  }
}
