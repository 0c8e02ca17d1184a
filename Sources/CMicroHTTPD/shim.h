#pragma once
#include <stdarg.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/epoll.h>
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
/// head, and hands the connection over with MHD_add_connection. One thread per connection; URLs are unescaped with
/// `unescape`; `uri` sees each raw request target first; `notify` hears of each connection's start and end.
static inline struct MHD_Daemon *CMicroHTTPD_start_daemon(
    unsigned int flags, unsigned int connection_limit, unsigned int connection_timeout_seconds,
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
        MHD_OPTION_END);
}

/// The socket of `connection`, or -1. MHD_get_connection_info is variadic; MHD owns the socket.
static inline int CMicroHTTPD_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
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

/// Adds `fd` to the epoll set `epoll_fd`, edge-triggered for input and peer hang-up: every arrival of new bytes is
/// reported once, even while earlier bytes stay unread (the gate only peeks at them). Returns 0 or -1.
static inline int CMicroHTTPD_epoll_add(int epoll_fd, int fd) {
    struct epoll_event event = {0};
    event.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
    event.data.fd = fd;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

/// Removes `fd` from the epoll set. Returns 0 or -1.
static inline int CMicroHTTPD_epoll_remove(int epoll_fd, int fd) {
    return epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL);
}

/// Waits up to `timeout_ms` for events and writes up to `capacity` ready sockets to `fds`, and to `hung_up` whether
/// the peer closed or the socket failed (EPOLLRDHUP, EPOLLHUP, EPOLLERR); returns their count, 0 on timeout, -1 on
/// error. (`struct epoll_event` is packed on x86-64, so Swift does not touch it.)
static inline int CMicroHTTPD_epoll_wait(int epoll_fd, int *fds, int *hung_up, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll_fd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        fds[i] = events[i].data.fd;
        hung_up[i] = (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
    }
    return count;
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
