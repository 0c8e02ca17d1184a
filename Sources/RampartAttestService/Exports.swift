// The HTTP types of the service's API (HTTPRequest, HTTPResponse, HTTPResponder, HTTPServer) for callers that
// import only this module.
@_exported public import RampartHTTP
