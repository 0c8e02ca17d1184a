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

/// The port the daemon is bound to (useful after binding port 0), or 0.
static inline uint16_t CMicroHTTPD_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
