#pragma once
#include <stdarg.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call; these fixed-signature wrappers
// carry the module prefix (STYLE 3.5).

/// The unescaper of MHD_OPTION_UNESCAPE_CALLBACK: decodes `text` in place and returns its new length.
typedef size_t (*CMicroHTTPD_unescape_callback)(void *context, struct MHD_Connection *connection, char *text);

/// Starts a daemon bound to `address` (an IPv4 or IPv6 sockaddr) with one thread per connection, unescaping URLs
/// with `unescape`.
static inline struct MHD_Daemon *CMicroHTTPD_start_daemon(
    unsigned int flags, const struct sockaddr *address, unsigned int connection_limit,
    unsigned int connection_timeout_seconds, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context, CMicroHTTPD_unescape_callback unescape) {
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_END);
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

/// The port the daemon is bound to (useful after binding port 0), or 0.
static inline uint16_t CMicroHTTPD_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
