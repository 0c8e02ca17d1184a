#pragma once
#include <stdint.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>

// The few Linux calls the HTTP server's event loop makes that Swift cannot reach directly: accept4 and the eventfd
// flags need _GNU_SOURCE, and `struct epoll_event` is packed on x86-64, so Swift never touches it. Functions carry the
// module prefix.

/// accept4(2) with the new socket non-blocking and close-on-exec, and Nagle's algorithm off (answers are written
/// whole, and a kept-alive client waits for each). Returns the socket or -1.
static inline int CNetwork_accept(int listener, struct sockaddr *address, socklen_t *length) {
    int fd = accept4(listener, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return -1;
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/// The epoll interest the loop asks for: input (with peer hang-up) and/or output readiness.
enum {
    CNetwork_EPOLL_IN = 1,
    CNetwork_EPOLL_OUT = 2,
    /// Reported only: the socket hung up in both directions or failed (EPOLLHUP, EPOLLERR), which epoll reports
    /// whatever the interest.
    CNetwork_EPOLL_HUP = 4,
    /// Reported only: the peer shut down its writing (EPOLLRDHUP): after the bytes still queued, a read finds the end.
    CNetwork_EPOLL_PEER_SHUTDOWN = 8,
};

static inline uint32_t CNetwork_epoll_mask(int interest) {
    uint32_t events = 0;
    if (interest & CNetwork_EPOLL_IN) events |= EPOLLIN | EPOLLRDHUP;
    if (interest & CNetwork_EPOLL_OUT) events |= EPOLLOUT;
    return events;
}

/// Adds `fd` to the epoll set `epoll_fd`, level-triggered, with `interest` (CNetwork_EPOLL_IN/OUT). Returns 0 or -1.
static inline int CNetwork_epoll_add(int epoll_fd, int fd, int interest) {
    struct epoll_event event = {0};
    event.events = CNetwork_epoll_mask(interest);
    event.data.fd = fd;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

/// Adds the connection `fd` to the epoll set `epoll_fd`, edge-triggered, for input, output and hang-up at once: its
/// owner is told when each becomes possible again and keeps track itself (no epoll_ctl per request). Returns 0 or -1.
static inline int CNetwork_epoll_add_edge(int epoll_fd, int fd) {
    struct epoll_event event = {0};
    event.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    event.data.fd = fd;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

// rampart-load's event loop (Sources/rampart-load/LoadEventLoop.swift) uses this shim too: its sockets are added
// level-triggered with CNetwork_epoll_add, found again by the fd CNetwork_epoll_wait reports, and watched for output
// only while a request is left unsent (CNetwork_epoll_modify).

/// Changes the interest of `fd`, already in the set with CNetwork_epoll_add (level-triggered), to `interest`
/// (CNetwork_EPOLL_IN/OUT). Returns 0 or -1.
static inline int CNetwork_epoll_modify(int epoll_fd, int fd, int interest) {
    struct epoll_event event = {0};
    event.events = CNetwork_epoll_mask(interest);
    event.data.fd = fd;
    return epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
}

/// Removes `fd` from the epoll set. Returns 0 or -1.
static inline int CNetwork_epoll_remove(int epoll_fd, int fd) { return epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL); }

/// Waits up to `timeout_ms` for events and writes up to `capacity` ready sockets to `fds` and their readiness to
/// `ready` (bit 1: readable, or the peer closed or the socket failed; bit 2: writable; bit 4: hung up or failed,
/// EPOLLHUP or EPOLLERR; bit 8: the peer shut down its writing, EPOLLRDHUP); returns their count, 0 on timeout, -1 on
/// error.
static inline int CNetwork_epoll_wait(int epoll_fd, int *fds, int *ready, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll_fd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        fds[i] = events[i].data.fd;
        uint32_t got = events[i].events;
        ready[i] = ((got & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ? CNetwork_EPOLL_IN : 0)
            | ((got & (EPOLLOUT | EPOLLHUP | EPOLLERR)) ? CNetwork_EPOLL_OUT : 0)
            | ((got & (EPOLLHUP | EPOLLERR)) ? CNetwork_EPOLL_HUP : 0)
            | ((got & EPOLLRDHUP) ? CNetwork_EPOLL_PEER_SHUTDOWN : 0);
    }
    return count;
}

/// An eventfd (non-blocking, close-on-exec) that wakes the loop's epoll_wait. Returns it or -1.
static inline int CNetwork_wake_fd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/// Adds one to the eventfd `fd` (wakes the loop).
static inline void CNetwork_wake(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

/// Resets the eventfd `fd` after it woke the loop.
static inline void CNetwork_drain_wake(int fd) {
    uint64_t count;
    ssize_t got = read(fd, &count, sizeof count);
    (void)got;
}

/// Names the calling thread as `top -H` and /proc/PID/task/TID/comm show it (Linux keeps 15 bytes). Foundation's
/// `Thread.current.name` setter names a thread only once `start()` has stored its pthread handle, which the new
/// thread can outrun, and then drops the name silently. Returns 0 or an errno value.
static inline int CNetwork_name_this_thread(const char *name) { return pthread_setname_np(pthread_self(), name); }
