// The exit statuses of the watched programs (included by exec-watch.c's supervisor). At each
// recorded execve the supervisor keeps a pidfd of the caller (stopped in the call, so alive), in
// its epoll set; when the process ends and its parent has reaped it, PIDFD_GET_INFO with
// PIDFD_INFO_EXIT (Linux 6.15+) gives its wait status, though the supervisor is not its parent: one
// {"kind":"exit"} line with pid, start, status (the exit code, or minus the signal number) and the
// time the pidfd said it ended. A process never reaped gives none (given up after EXIT_TRIES
// tries); an older kernel none at all.
#include <sys/epoll.h>
#include <sys/wait.h>

#define MAX_TRACKED 4096
#define EXIT_TRIES 600 /* × 100 ms after its end */
#define EXIT_TAG (1ULL << 32) /* epoll data of a pidfd: EXIT_TAG | its slot */

static struct tracked {
  int fd, pid, tries; /* fd -1: a free slot; tries: 0 while it runs, then tries since its end */
  char start[24];
  struct timespec ended;
} tracked[MAX_TRACKED];
static int tracked_slots, tracked_ended, exit_off;

/**
 * Follows `pid` (its `pidfd`, taken) to its exit; once per process (a second execve keeps the
 * first). Returns 0 when it is not kept (the caller closes `pidfd`).
 */
static int track_exit(int epoll, int pid, int pidfd, const char *start) {
  if (exit_off || !start[0]) return 0;
  int free_slot = -1;
  for (int i = 0; i < tracked_slots; i++) {
    if (tracked[i].fd < 0) {
      if (free_slot < 0) free_slot = i;
    } else if (tracked[i].pid == pid) {
      return 0;
    }
  }
  if (free_slot < 0) {
    if (tracked_slots >= MAX_TRACKED) return 0;
    free_slot = tracked_slots++;
  }
  // One shot: once it has said the process ended, it is out of the set's wait (no EPOLL_CTL_DEL).
  struct epoll_event event = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = EXIT_TAG | (unsigned)free_slot};
  if (epoll_ctl(epoll, EPOLL_CTL_ADD, pidfd, &event) != 0) return 0;
  tracked[free_slot] = (struct tracked){.fd = pidfd, .pid = pid};
  snprintf(tracked[free_slot].start, sizeof tracked[free_slot].start, "%s", start);
  return 1;
}

/** The epoll wait's timeout: 100 ms while an ended process waits to be reaped, else none. */
static int exit_timeout(void) { return tracked_ended ? 100 : -1; }

/** A tracked process's pidfd said it ended: its status is tried from now on. */
static void exit_seen(unsigned slot) {
  if (slot >= (unsigned)tracked_slots || tracked[slot].fd < 0 || tracked[slot].tries) return;
  tracked[slot].tries = 1, tracked_ended += 1;
  clock_gettime(CLOCK_REALTIME, &tracked[slot].ended);
}

/** Records the statuses of the ended processes known by now. */
static void exit_collect(struct record *record) {
  for (int i = 0; i < tracked_slots && tracked_ended; i++) {
    struct tracked *one = &tracked[i];
    if (one->fd < 0 || !one->tries) continue;
    struct pidfd_facts info = {.mask = FACTS_EXIT};
    int ok = ioctl(one->fd, PIDFD_GET_FACTS, &info) == 0;
    if (!ok && (errno == ENOTTY || errno == EINVAL)) exit_off = 1;  // a kernel before 6.15
    int known = ok && (info.mask & FACTS_EXIT);
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
    one->fd = -1, tracked_ended -= 1;
  }
  while (tracked_slots && tracked[tracked_slots - 1].fd < 0) tracked_slots -= 1;
}
