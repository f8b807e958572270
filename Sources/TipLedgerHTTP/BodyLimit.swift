// SPDX-License-Identifier: GPL-3.0-or-later

/// The largest request body the server keeps, and how it refuses a larger one: 413, at the
/// headers when `Content-Length` declares it, before the client sends it (with `Expect:
/// 100-continue` libmicrohttpd then sends the 413 instead of `100 Continue`, and otherwise
/// closes the connection after the answer rather than read the body); otherwise once the body
/// has passed the limit, reading on only a little before closing the connection.
struct BodyLimit: Sendable {
    /// Largest body kept, in bytes.
    let maximumBytes: Int
    /// Body bytes read and thrown away after a chunked body passed the limit, before the
    /// connection is closed without an answer: enough to answer a slightly oversized body with
    /// 413, not enough to let a client stream forever.
    let discardAllowanceBytes = 1 << 20

    /// The answer to a body over the limit.
    var response: HTTPResponse {
        .error(.bodyTooLarge, "the request body is larger than \(maximumBytes) bytes")
    }

    /// Whether `headers` declare a body over the limit.
    func refusesDeclaredLength(in headers: HTTPHeaders) -> Bool {
        guard let declared = headers["Content-Length"], let length = UInt64(declared) else { return false }
        return length > UInt64(maximumBytes)
    }

    /// Takes a piece of `request`'s body: keeps it while the total stays within the limit,
    /// otherwise drops what was kept and only counts. False once the body is so far past the
    /// limit that the connection should be closed rather than read on.
    func receive(_ data: UnsafeRawBufferPointer, into request: RequestContext) -> Bool {
        request.receivedBytes += data.count
        // Already answered (refused at the headers): the body is only counted.
        if !request.tooLarge && request.status == nil {
            if request.body.count + data.count <= maximumBytes {
                request.body.append(contentsOf: data)
            } else {
                request.tooLarge = true
                request.body = []
            }
        }
        // A chunked body far past the limit: stop reading and close rather than stream on.
        return !(request.tooLarge && request.receivedBytes > maximumBytes + discardAllowanceBytes)
    }
}
