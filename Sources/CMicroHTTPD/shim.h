#pragma once
#include <stdarg.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call; these fixed-signature wrappers
// carry the module prefix (STYLE 3.5).

/// The unescaper of MHD_OPTION_UNESCAPE_CALLBACK: decodes `text` in place and returns its new length.
typedef size_t (*CMicroHTTPD_unescape_callback)(void *context, struct MHD_Connection *connection, char *text);

/// The callback of MHD_OPTION_URI_LOG_CALLBACK: sees each request's target before any unescaping; what it returns is
/// the request's initial `*req_cls`.
typedef void *(*CMicroHTTPD_uri_callback)(void *context, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon without a listening socket of its own: Rampart's connection gate accepts, checks each request
/// head, and relays the checked bytes to the daemon over a socket pair it hands over with MHD_add_connection.
/// `flags` choose the threading (Rampart: MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
/// MHD_ALLOW_SUSPEND_RESUME); `pool_size` internal threads poll the connections (MHD_OPTION_THREAD_POOL_SIZE, only
/// passed when above 1); URLs are unescaped with `unescape`; `uri` sees each raw request target first; `notify` hears
/// of each connection's start and end.
static inline struct MHD_Daemon *CMicroHTTPD_start_daemon(
    unsigned int flags, unsigned int pool_size, unsigned int connection_limit, unsigned int connection_timeout_seconds,
    MHD_AccessHandlerCallback handler, void *handler_context, MHD_RequestCompletedCallback completed,
    void *completed_context, MHD_NotifyConnectionCallback notify, void *notify_context,
    CMicroHTTPD_unescape_callback unescape, CMicroHTTPD_uri_callback uri, void *uri_context) {
    return MHD_start_daemon(
        flags | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, uri, uri_context,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
        pool_size > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, pool_size,
        MHD_OPTION_END);
}

/// The socket of `connection`, or -1. MHD_get_connection_info is variadic; MHD owns the socket.
static inline int CMicroHTTPD_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The socket context of `connection` (what MHD_OPTION_NOTIFY_CONNECTION stored at its start), or NULL.
static inline void *CMicroHTTPD_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// accept(2), with the new socket made non-blocking and close-on-exec (accept4 needs _GNU_SOURCE). Returns the
/// socket or -1.
static inline int CMicroHTTPD_accept(int listener, struct sockaddr *address, socklen_t *length) {
    int fd = accept(listener, address, length);
    if (fd < 0) return -1;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/// The epoll interest the gate asks for: input (with peer hang-up) and/or output readiness.
enum {
    CMicroHTTPD_EPOLL_IN = 1,
    CMicroHTTPD_EPOLL_OUT = 2,
};

static inline uint32_t CMicroHTTPD_epoll_mask(int interest) {
    uint32_t events = 0;
    if (interest & CMicroHTTPD_EPOLL_IN) events |= EPOLLIN | EPOLLRDHUP;
    if (interest & CMicroHTTPD_EPOLL_OUT) events |= EPOLLOUT;
    return events;
}

/// Adds `fd` to the epoll set `epoll_fd`, level-triggered, with `interest` (CMicroHTTPD_EPOLL_IN/OUT). Returns 0 or
/// -1.
static inline int CMicroHTTPD_epoll_add(int epoll_fd, int fd, int interest) {
    struct epoll_event event = {0};
    event.events = CMicroHTTPD_epoll_mask(interest);
    event.data.fd = fd;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

/// Changes the interest of `fd`, already in the set. Returns 0 or -1.
static inline int CMicroHTTPD_epoll_modify(int epoll_fd, int fd, int interest) {
    struct epoll_event event = {0};
    event.events = CMicroHTTPD_epoll_mask(interest);
    event.data.fd = fd;
    return epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
}

/// Removes `fd` from the epoll set. Returns 0 or -1.
static inline int CMicroHTTPD_epoll_remove(int epoll_fd, int fd) {
    return epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL);
}

/// Waits up to `timeout_ms` for events and writes up to `capacity` ready sockets to `fds` and their readiness to
/// `ready` (bit 1: readable, or the peer closed or the socket failed; bit 2: writable); returns their count, 0 on
/// timeout, -1 on error. (`struct epoll_event` is packed on x86-64, so Swift does not touch it.)
static inline int CMicroHTTPD_epoll_wait(int epoll_fd, int *fds, int *ready, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll_fd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        fds[i] = events[i].data.fd;
        uint32_t got = events[i].events;
        ready[i] = ((got & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ? CMicroHTTPD_EPOLL_IN : 0)
            | ((got & (EPOLLOUT | EPOLLHUP | EPOLLERR)) ? CMicroHTTPD_EPOLL_OUT : 0);
    }
    return count;
}

/// A connected, non-blocking, close-on-exec AF_UNIX stream socket pair: `fds[0]` stays with the gate, `fds[1]` goes
/// to libmicrohttpd. Returns 0 or -1.
static inline int CMicroHTTPD_socket_pair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds);
}

/// An eventfd (non-blocking, close-on-exec) that wakes the gate's epoll_wait. Returns it or -1.
static inline int CMicroHTTPD_wake_fd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/// Adds one to the eventfd `fd` (wakes the gate).
static inline void CMicroHTTPD_wake(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

/// Resets the eventfd `fd` after it woke the gate.
static inline void CMicroHTTPD_drain_wake(int fd) {
    uint64_t count;
    ssize_t got = read(fd, &count, sizeof count);
    (void)got;
}

/// Writes the client address of `connection` as IP text without a port (`192.0.2.1`, `2001:db8::1`; an IPv4-mapped
/// IPv6 address as its IPv4 text) into `buffer` and returns 1, or returns 0 when MHD does not know it.
///
/// MHD_get_connection_info is variadic; MHD_CONNECTION_INFO_CLIENT_ADDRESS points at MHD's copy of the peer address,
/// valid while the connection lives.
static inline int CMicroHTTPD_client_address(struct MHD_Connection *connection, char *buffer, socklen_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, size) != NULL;
    }
    if (address->sa_family == AF_INET6) {
        const struct in6_addr *ip = &((const struct sockaddr_in6 *)address)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(ip)) return inet_ntop(AF_INET, &ip->s6_addr[12], buffer, size) != NULL;
        return inet_ntop(AF_INET6, ip, buffer, size) != NULL;
    }
    return 0;
}
