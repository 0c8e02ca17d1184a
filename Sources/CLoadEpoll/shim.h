#pragma once
#include <stdint.h>
#include <sys/epoll.h>

// rampart-load's event loop (Sources/rampart-load/LoadEventLoop.swift): Swift's Glibc module has no <sys/epoll.h>,
// and `struct epoll_event` is packed on x86-64, so Swift never touches it. Each socket is registered with a token
// (the worker's index in its loop), level-triggered. Functions carry the module prefix (STYLE 3.5).

/// The readiness a socket is watched for, and reported with.
enum {
    /// Readable, or the peer closed, or the socket failed (EPOLLIN, EPOLLRDHUP, EPOLLHUP, EPOLLERR).
    CLoadEpoll_IN = 1,
    /// Writable, or the socket failed (EPOLLOUT, EPOLLHUP, EPOLLERR).
    CLoadEpoll_OUT = 2,
};

/// A new epoll set, close-on-exec; the caller closes it with close(2). Returns it or -1.
static inline int CLoadEpoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static inline uint32_t CLoadEpoll_mask(int interest) {
    uint32_t events = 0;
    if (interest & CLoadEpoll_IN) events |= EPOLLIN | EPOLLRDHUP;
    if (interest & CLoadEpoll_OUT) events |= EPOLLOUT;
    return events;
}

/// Adds `fd` to the set with `token` and `interest` (CLoadEpoll_IN/OUT). Closing `fd` removes it (epoll(7): the
/// registration ends when the last descriptor of the open file is closed). Returns 0 or -1.
static inline int CLoadEpoll_add(int epoll_fd, int fd, uint32_t token, int interest) {
    struct epoll_event event = {0};
    event.events = CLoadEpoll_mask(interest);
    event.data.u32 = token;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

/// Changes the interest of `fd`, already in the set. Returns 0 or -1.
static inline int CLoadEpoll_modify(int epoll_fd, int fd, uint32_t token, int interest) {
    struct epoll_event event = {0};
    event.events = CLoadEpoll_mask(interest);
    event.data.u32 = token;
    return epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
}

/// Waits up to `timeout_ms` for events; writes up to `capacity` (at most 256) tokens to `tokens` and their readiness
/// (CLoadEpoll_IN/OUT) to `ready`. Returns their count, 0 on timeout, -1 on error (errno set).
static inline int CLoadEpoll_wait(int epoll_fd, uint32_t *tokens, int *ready, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll_fd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        uint32_t got = events[i].events;
        tokens[i] = events[i].data.u32;
        ready[i] = ((got & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ? CLoadEpoll_IN : 0)
            | ((got & (EPOLLOUT | EPOLLHUP | EPOLLERR)) ? CLoadEpoll_OUT : 0);
    }
    return count;
}
