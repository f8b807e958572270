// SPDX-License-Identifier: GPL-3.0-or-later
internal import CMicroHTTPD

/// Hands a response to libmicrohttpd for a request, keeping what may go on the wire: a status
/// outside 200…599, or a header field that could break the framing (`HTTPSyntax`), sends a
/// generic 500 instead, so a handler's mistake never reaches the wire half-written; the framing
/// fields are libmicrohttpd's; while the server drains, the connection closes after the answer.
enum ResponseQueue {
    /// The answer sent in place of a response the adapter cannot send faithfully.
    private static let internalErrorResponse = HTTPResponse.error(.internalError, "internal error")

    /// Header fields the server derives from the body itself.
    private static let framingFields = ["Content-Length", "Transfer-Encoding"]

    /// Copies `response` into a libmicrohttpd response and queues it on `connection`; records in
    /// `request` what was sent. `draining` adds `Connection: close` unless the response says
    /// otherwise.
    static func queue(
        _ response: HTTPResponse, on connection: OpaquePointer, for request: RequestContext, draining: Bool
    ) -> MHD_Result {
        let response = isSendable(response) ? response : internalErrorResponse
        // RESPMEM_MUST_COPY: libmicrohttpd copies the bytes before returning, so the Swift buffer
        // needs to live only for this call. The new response starts with one reference, ours.
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse = created else { return .NO }
        // MHD_queue_response takes its own reference; ours is dropped on every path out.
        defer { MHD_destroy_response(mhdResponse) }

        for field in response.headers where !framingFields.contains(where: { FieldNames.match($0, field.name) }) {
            // MHD_add_response_header copies both strings.
            guard MHD_add_response_header(mhdResponse, field.name, field.value) == .YES else { return .NO }
        }
        if draining && response.headers["Connection"] == nil {
            guard MHD_add_response_header(mhdResponse, "Connection", "close") == .YES else { return .NO }
        }
        guard MHD_queue_response(connection, UInt32(response.status), mhdResponse) == .YES else { return .NO }
        request.status = response.status
        request.responseBytes = response.body.count
        return .YES
    }

    /// Whether the status is a final one and every header field can go on the wire as it is.
    private static func isSendable(_ response: HTTPResponse) -> Bool {
        guard (200...599).contains(response.status) else { return false }
        return response.headers.allSatisfy { field in
            !field.name.isEmpty && field.name.utf8.allSatisfy(HTTPSyntax.isTokenByte)
                && field.value.utf8.allSatisfy(HTTPSyntax.isFieldValueByte)
        }
    }
}
