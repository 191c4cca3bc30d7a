// osharm desktop: guest/exec_watch.py in C (the same command line, filter and record), built into
// dist/osharm-exec-watch at the package's build (guest/watch/build.sh); sandbox-session.sh takes it
// when it is there and falls back to the Python one. A supervisor's call costs no interpreter: a
// stopped exec waits for a few system calls, not for Python.
//   osharm-exec-watch supervise SOCKET RECORD
//   osharm-exec-watch wrap SOCKET LABEL -- ARGV
// See exec_watch.py for what each does, and docs/packages/harm.md for what the record is used for.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define ARGV_CAP 64
#define ARG_CAP 2048
#define MAX_RECORD_BYTES (8L * 1024 * 1024)
#define MAX_LISTENERS 64
#define X32_BIT 0x40000000u
#define LINE_CAP (ARGV_CAP * ARG_CAP * 6 + 16384)

static char *line;
static size_t used;

static void put(const char *text) {
  size_t n = strlen(text);
  if (used + n < LINE_CAP) memcpy(line + used, text, n), used += n;
}

static void putf(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void putf(const char *format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  put(buf);
}

/** A JSON string; bytes that are not UTF-8 pass through (the reader decodes them as U+FFFD). */
static void put_json(const char *text, size_t n) {
  put("\"");
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '"' || c == '\\') {
      char esc[3] = {'\\', (char)c, 0};
      put(esc);
    } else if (c < 0x20 || c == 0x7f) {
      putf("\\u%04x", c);
    } else if (used + 1 < LINE_CAP) {
      line[used++] = (char)c;
    }
  }
  put("\"");
}

static void put_key_string(const char *key, const char *text, ssize_t n) {
  putf(",\"%s\":", key);
  if (n < 0) put("null");
  else put_json(text, (size_t)n);
}

// ---- the filter (as exec_watch.py's filter_program) ----

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (k))

static int install_filter(void) {
  struct sock_filter code[] = {
      LD(offsetof(struct seccomp_data, arch)),
      JEQ(AUDIT_ARCH_X86_64, 1, 0),
      RET(SECCOMP_RET_USER_NOTIF),
      LD(offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, X32_BIT, 10, 0),  // → notify
      JEQ(__NR_io_uring_setup, 10, 0),                       // → EPERM
      JEQ(__NR_execve, 8, 0),
      JEQ(__NR_execveat, 7, 0),
      JEQ(__NR_connect, 6, 0),
      JEQ(__NR_socket, 0, 4),  // not socket → allow
      LD(offsetof(struct seccomp_data, args[0])),
      JEQ(AF_INET, 3, 0),
      JEQ(AF_INET6, 2, 0),
      JEQ(AF_PACKET, 1, 0),
      RET(SECCOMP_RET_ALLOW),
      RET(SECCOMP_RET_USER_NOTIF),
      RET(SECCOMP_RET_ERRNO | EPERM),
  };
  struct sock_fprog prog = {.len = sizeof code / sizeof code[0], .filter = code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

// ---- wrap ----

static void problem(const char *sock_path, const char *label, const char *text) {
  fprintf(stderr, "osharm exec watch (%s): %s; running without it\n", label, text);
  char path[4096];
  const char *slash = strrchr(sock_path, '/');
  int dir = slash ? (int)(slash - sock_path) : 1;
  snprintf(path, sizeof path, "%.*s/exec-watch-%s.problem", dir, slash ? sock_path : ".", label);
  FILE *out = fopen(path, "w");
  if (out) fprintf(out, "%s\n", text), fclose(out);
}

static int wrap(const char *sock_path, const char *label, char **argv) {
  char why[256] = "";
#if !defined(__x86_64__)
  snprintf(why, sizeof why, "not built for this machine");
#else
  int channel = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  snprintf(address.sun_path, sizeof address.sun_path, "%s", sock_path);
  struct timeval ten = {.tv_sec = 10};
  setsockopt(channel, SOL_SOCKET, SO_RCVTIMEO, &ten, sizeof ten);
  // Connected before the filter: connect is watched afterwards.
  if (channel < 0 || connect(channel, (struct sockaddr *)&address, sizeof address) != 0) {
    snprintf(why, sizeof why, "[Errno %d] %s", errno, strerror(errno));
  } else {
    int listener = install_filter();
    if (listener < 0) {
      snprintf(why, sizeof why, "[Errno %d] seccomp(NEW_LISTENER) refused", errno);
    } else {
      // From here every exec must be answered: hand the listener over and wait for the taking.
      struct iovec io = {.iov_base = (void *)label, .iov_len = strlen(label)};
      char control[CMSG_SPACE(sizeof(int))];
      memset(control, 0, sizeof control);
      struct msghdr msg = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control,
                           .msg_controllen = sizeof control};
      struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
      cmsg->cmsg_level = SOL_SOCKET, cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN(sizeof(int));
      memcpy(CMSG_DATA(cmsg), &listener, sizeof listener);
      char ok = 0;
      if (sendmsg(channel, &msg, 0) < 0 || recv(channel, &ok, 1, 0) != 1 || ok != 'k')
        snprintf(why, sizeof why, "the supervisor did not take the listener");
      close(listener);
    }
    close(channel);
  }
#endif
  if (why[0]) problem(sock_path, label, why);
  execvp(argv[0], argv);
  fprintf(stderr, "osharm exec watch: %s: %s\n", argv[0], strerror(errno));
  return 127;
}

// ---- supervise ----

static ssize_t read_small(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, size - 1);
  close(fd);
  if (n >= 0) buf[n] = 0;
  return n;
}

#include "proc-facts.h"

/** A JSON array of `count` strings read by peek_strings. */
static void put_strings(const char *texts, const ssize_t *length, int count) {
  put(",\"argv\":[");
  for (int i = 0; i < count; i++) {
    if (i) put(",");
    put_json(texts + (size_t)i * ARG_CAP, length[i] > 0 ? (size_t)length[i] : 0);
  }
  put("]");
}

static struct stat own_user_ns;

/**
 * ppid, start, pidns, cwd, uid, uid_inside (exec_watch.py's proc_facts); `pidfd`: the caller's, or
 * -1; its start time (/proc/PID/stat field 22) into `start` (empty: unread).
 */
static void put_facts(int pid, int pidfd, char start[24]) {
  char path[64], buf[1024], link[4096];
  long uid = -1, ppid = -1;
  int known = pidfd_facts(pidfd, &uid, &ppid);
  start[0] = 0;
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  if (read_small(path, buf, sizeof buf) > 0) {
    char *at = strrchr(buf, ')');
    int field = 0;
    for (char *tok = at ? strtok(at + 2, " ") : NULL; tok; tok = strtok(NULL, " "), field++) {
      if (field == 1 && !known) ppid = strtol(tok, NULL, 10);
      if (field == 19) {
        snprintf(start, 24, "%s", tok);
        break;
      }
    }
  }
  if (ppid >= 0) putf(",\"ppid\":%ld", ppid);
  if (start[0]) putf(",\"start\":\"%s\"", start);
  const char *links[][2] = {{"pidns", "ns/pid"}, {"cwd", "cwd"}};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "/proc/%d/%s", pid, links[i][1]);
    ssize_t n = readlink(path, link, sizeof link);
    put_key_string(links[i][0], link, n);
  }
  if (!known) {
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    char status[4096];
    if (read_small(path, status, sizeof status) > 0) {
      char *at = strstr(status, "\nUid:");
      if (at) uid = strtol(at + 5, NULL, 10);
    }
  }
  if (uid < 0) {
    put(",\"uid_inside\":null");
    return;
  }
  long inside = uid;
  struct stat theirs;
  snprintf(path, sizeof path, "/proc/%d/ns/user", pid);
  if (stat(path, &theirs) == 0 && theirs.st_ino != own_user_ns.st_ino)
    inside = uid_inside(pid, uid, &theirs);
  putf(",\"uid\":%ld,\"uid_inside\":%ld", uid, inside);
}

static int socket_type(int pid, int fd) {
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), type = -1;
  if (pidfd < 0) return -1;
  int copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
  close(pidfd);
  if (copy < 0) return -1;
  socklen_t len = sizeof type;
  if (getsockopt(copy, SOL_SOCKET, SO_TYPE, &type, &len) != 0) type = -1;
  close(copy);
  return type;
}

#define LAST_TYPES 4096
static struct { int pid, type; } last_type[LAST_TYPES];

static const char *foreign_call(unsigned arch, int nr) {
  if (arch == AUDIT_ARCH_X86_64) {
    switch (nr & ~X32_BIT) {
      case 520: return "execve";
      case 545: return "execveat";
      case 42: return "connect";
      case 41: return "socket";
    }
    return NULL;
  }
  switch (nr) {
    case 11: return "execve";
    case 358: return "execveat";
    case 102: return "socketcall";
    case 359: return "socket";
    case 362: return "connect";
  }
  return NULL;
}

/** The event's own fields after "{" (exec_watch.py's describe), or 0: not recorded. */
static int describe(struct seccomp_notif *req) {
  int pid = (int)req->pid, nr = req->data.nr;
  unsigned arch = req->data.arch;
  const unsigned long long *args = req->data.args;
  if (arch != AUDIT_ARCH_X86_64 || (nr & X32_BIT)) {
    const char *call = foreign_call(arch, nr);
    if (!call) return 0;
    putf("\"kind\":\"foreign-abi\",\"call\":\"%s\",\"arch\":\"0x%x\"", call, arch);
    return 1;
  }
  if (nr == __NR_socket) {
    int family = (int)(args[0] & 0xffffffff), type = (int)(args[1] & 0xf);
    const char *name = family == AF_INET ? "inet" : family == AF_INET6 ? "inet6" : family == AF_PACKET ? "packet" : NULL;
    last_type[pid % LAST_TYPES].pid = pid, last_type[pid % LAST_TYPES].type = type;
    if (name) putf("\"kind\":\"socket\",\"family\":\"%s\",\"type\":%d", name, type);
    else putf("\"kind\":\"socket\",\"family\":\"%d\",\"type\":%d", family, type);
    return 1;
  }
  char path[64];
  int made = 0;
  if (nr == __NR_execve || nr == __NR_execveat) {
    unsigned long file_at = args[nr == __NR_execve ? 0 : 1], argv_at = args[nr == __NR_execve ? 1 : 2];
    // The file and argv's strings in one read of the caller's memory (the pointers before).
    static unsigned long at[ARGV_CAP + 1];
    static ssize_t length[ARGV_CAP + 1];
    static char *texts;
    if (!texts) texts = malloc((size_t)(ARGV_CAP + 1) * ARG_CAP);
    ssize_t pointers = argv_at ? peek(pid, argv_at, at + 1, ARGV_CAP * sizeof at[0]) : 0;
    int count = 0;
    while (count < pointers / 8 && at[count + 1]) count++;
    at[0] = file_at;
    if (texts) peek_strings(pid, at, count + 1, texts, ARG_CAP, length);
    char *file = texts;
    ssize_t n = texts ? length[0] : -1;
    // A search along PATH tries names that do not exist: not a program started.
    if (n > 0 && n < ARG_CAP && (nr == __NR_execve || file[0] == '/')) {
      file[n] = 0;
      char seen[ARG_CAP + 64];
      snprintf(seen, sizeof seen, "/proc/%d/%s%s%s", pid, file[0] == '/' ? "root" : "cwd",
               file[0] == '/' ? "" : "/", file);
      struct stat st;
      if (stat(seen, &st) != 0) return 0;
    }
    put("\"kind\":\"exec\"");
    // Unreadable memory (the caller gone, or not ours to read): neither file nor argv.
    if (n >= 0) {
      put_key_string("file", file, n);
      put_strings(texts + ARG_CAP, length + 1, argv_at && pointers >= 0 ? count : 0);
    }
    made = 1;
  } else if (nr == __NR_connect && args[1]) {
    unsigned char raw[128];
    size_t length = (args[2] & 0xffffffff) < sizeof raw ? (args[2] & 0xffffffff) : sizeof raw;
    ssize_t got = length ? peek(pid, args[1], raw, length) : -1;
    char text[INET6_ADDRSTRLEN + 1] = "";
    sa_family_t family = 0;
    if (got >= 2) memcpy(&family, raw, sizeof family);
    if (family == AF_INET && got >= 8) {
      inet_ntop(AF_INET, raw + 4, text, sizeof text);
    } else if (family == AF_INET6 && got >= 24) {
      inet_ntop(AF_INET6, raw + 8, text, sizeof text);
      if (strncmp(text, "::ffff:", 7) == 0 && strchr(text, '.')) memmove(text, text + 7, strlen(text + 7) + 1);
    }
    if (text[0]) {
      int port = (raw[2] << 8) | raw[3];
      int type = socket_type(pid, (int)(args[0] & 0xffffffff));
      if (type < 0 && last_type[pid % LAST_TYPES].pid == pid) type = last_type[pid % LAST_TYPES].type;
      const char *protocol = type == SOCK_STREAM ? "tcp" : type == SOCK_DGRAM ? "udp" : "ip";
      putf("\"kind\":\"connect\",\"address\":\"%s\",\"port\":%d,\"protocol\":\"%s\"", text, port, protocol);
      char *cmdline = malloc(ARG_CAP * 4);
      snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
      int fd = cmdline ? open(path, O_RDONLY | O_CLOEXEC) : -1;
      if (fd >= 0) {
        ssize_t size = read(fd, cmdline, ARG_CAP * 4);
        close(fd);
        put(",\"argv\":[");
        int count = 0;
        for (ssize_t at = 0; size > 0 && at < size && count < ARGV_CAP;) {
          char *end = memchr(cmdline + at, 0, (size_t)(size - at));
          size_t len = end ? (size_t)(end - (cmdline + at)) : (size_t)(size - at);
          if (len) {
            if (count++) put(",");
            put_json(cmdline + at, len);
          }
          at += (ssize_t)len + 1;
        }
        put("]");
      }
      free(cmdline);
      made = 1;
    }
  }
  return made;
}

static void put_time(void) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  putf(",\"t\":%ld.%06ld", (long)now.tv_sec, now.tv_nsec / 1000);
}

struct record {
  const char *path;
  int fd;
  long dropped;
  off_t size;  // kept here: only the supervisor writes the record
};

static void record_write(struct record *record) {
  put("}\n");
  if (record->size > MAX_RECORD_BYTES) {
    record->dropped += 1;
    if (record->dropped == 1 || record->dropped % 1000 == 0) {
      char path[4200];
      snprintf(path, sizeof path, "%s.dropped", record->path);
      FILE *out = fopen(path, "w");
      if (out) fprintf(out, "%ld\n", record->dropped), fclose(out);
    }
    return;
  }
  ssize_t wrote = write(record->fd, line, used);
  if (wrote < 0) record->dropped += 1;
  else record->size += wrote;
}

#include "exit-watch.h"

/** Takes a wrap's listener from `conn`: into the epoll set under a free slot of `labels`. */
static void take_listener(int epoll, int conn, char labels[][64], int *listeners, struct record *record) {
  char label[64] = "";
  struct iovec io = {.iov_base = label, .iov_len = sizeof label - 1};
  char control[CMSG_SPACE(sizeof(int))];
  struct msghdr msg = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  ssize_t n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
  struct cmsghdr *cmsg = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
  if (cmsg && cmsg->cmsg_type == SCM_RIGHTS) {
    int listener, slot = 1;
    memcpy(&listener, CMSG_DATA(cmsg), sizeof listener);
    while (slot <= MAX_LISTENERS && listeners[slot] >= 0) slot++;
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = (unsigned)slot};
    if (slot > MAX_LISTENERS || epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event) != 0) {
      close(listener);  // never answered: the wrap is told below, its calls then fail
      return;
    }
    label[n] = 0;
    listeners[slot] = listener;
    snprintf(labels[slot], 64, "%s", label);
    used = 0;
    put("{\"kind\":\"watch\",\"label\":");
    put_json(label, strlen(label));
    put_time();
    record_write(record);
    if (send(conn, "k", 1, MSG_NOSIGNAL) < 0) {
      // the wrap gave up: it says so itself
    }
  }
}

/** One stopped call on `listener`: recorded (while it waits), then let go on. */
static void answer(int epoll, int listener, const char *label, struct seccomp_notif *req,
                   struct seccomp_notif_resp *resp, const struct seccomp_notif_sizes *sizes,
                   struct record *record) {
  memset(req, 0, sizes->seccomp_notif);
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) return;  // ENOENT: the caller went away
  used = 0;
  put("{");
  if (describe(req)) {
    int exec = (req->data.nr == __NR_execve || req->data.nr == __NR_execveat) &&
               req->data.arch == AUDIT_ARCH_X86_64;
    // Opened while the call waits: the caller is alive and this pid is its.
    int pidfd = (int)syscall(SYS_pidfd_open, req->pid, 0);
    char start[24];
    put_facts((int)req->pid, pidfd, start);
    put_time();
    putf(",\"pid\":%u,\"label\":", req->pid);
    put_json(label, strlen(label));
    // Read while the call still waits (its id valid): else the caller is gone.
    int gone = ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) != 0;
    if (gone) put(",\"gone\":true");
    record_write(record);
    if (pidfd >= 0 && (gone || !exec || !track_exit(epoll, (int)req->pid, pidfd, start))) close(pidfd);
  }
  memset(resp, 0, sizes->seccomp_notif_resp);
  resp->id = req->id;
  resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);  // fails only for a caller gone meanwhile
}

static int supervise(const char *sock_path, const char *record_path) {
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  stat("/proc/self/ns/user", &own_user_ns);
  line = malloc(LINE_CAP);
  struct record record = {.path = record_path,
                          .fd = open(record_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)};
  struct stat existing;
  if (!line || record.fd < 0 || fstat(record.fd, &existing) != 0) return 1;
  record.size = existing.st_size;
  unlink(sock_path);
  int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  snprintf(address.sun_path, sizeof address.sun_path, "%s", sock_path);
  if (server < 0 || bind(server, (struct sockaddr *)&address, sizeof address) != 0) return 1;
  chmod(sock_path, 0600);
  listen(server, 16);
  // One epoll set: the socket (data 0), the listeners (their slot, 1…), the tracked pidfds.
  int epoll = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event event = {.events = EPOLLIN, .data.u64 = 0};
  if (epoll < 0 || epoll_ctl(epoll, EPOLL_CTL_ADD, server, &event) != 0) return 1;
  int listeners[MAX_LISTENERS + 1];
  char labels[MAX_LISTENERS + 1][64];
  for (int i = 0; i <= MAX_LISTENERS; i++) listeners[i] = -1;
  struct seccomp_notif_sizes sizes;
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) return 1;
  struct seccomp_notif *req = calloc(1, sizes.seccomp_notif > sizeof *req ? sizes.seccomp_notif : sizeof *req);
  struct seccomp_notif_resp *resp = calloc(1, sizes.seccomp_notif_resp > sizeof *resp ? sizes.seccomp_notif_resp : sizeof *resp);
  struct epoll_event events[64];
  for (;;) {
    int ready = epoll_wait(epoll, events, 64, exit_timeout());
    if (ready < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    for (int k = 0; k < ready; k++) {
      unsigned long long tag = events[k].data.u64;
      if (tag & EXIT_TAG) {
        exit_seen((unsigned)(tag & 0xffffffffu));
      } else if (tag == 0) {
        int conn = accept4(server, NULL, NULL, SOCK_CLOEXEC);
        if (conn >= 0) take_listener(epoll, conn, labels, listeners, &record), close(conn);
      } else if (tag <= MAX_LISTENERS && listeners[tag] >= 0) {
        if (events[k].events & EPOLLIN) {
          answer(epoll, listeners[tag], labels[tag], req, resp, &sizes, &record);
        } else {
          // Every process under this listener has ended.
          close(listeners[tag]);
          listeners[tag] = -1;
        }
      }
    }
    exit_collect(&record);
  }
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "supervise") == 0) return supervise(argv[2], argv[3]);
  if (argc >= 6 && strcmp(argv[1], "wrap") == 0 && strcmp(argv[4], "--") == 0)
    return wrap(argv[2], argv[3], argv + 5);
  fprintf(stderr, "usage: osharm-exec-watch supervise SOCK RECORD | wrap SOCK LABEL -- ARGV\n");
  return 2;
}
