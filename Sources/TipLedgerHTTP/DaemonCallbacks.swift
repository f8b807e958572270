// SPDX-License-Identifier: GPL-3.0-or-later
internal import CMicroHTTPD

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The C callbacks libmicrohttpd calls on its worker threads.
///
/// A plain nonisolated type on purpose: top-level code and anything main-actor isolated would be
/// entered from a foreign thread. The callbacks reach only `DaemonContext` (Sendable) and the
/// request's own `RequestContext`, which libmicrohttpd never hands to two threads at once.
enum DaemonCallbacks {
    /// `MHD_AccessHandlerCallback`: called once when the headers are in (`*con_cls` still NULL),
    /// once per piece of body (`*upload_data_size` > 0), and once more with no data when the
    /// whole request has arrived. The manual: "The response cannot be queued when this callback
    /// is called to process the client upload data", so answers are queued only on the first or
    /// the last call. Returning `MHD_NO` closes the connection without an answer.
    static let accessHandler: MHD_AccessHandlerCallback = {
        contextPointer, connection, url, method, version, uploadData, uploadDataSize, requestSlot in
        guard let contextPointer, let connection, let uploadDataSize, let requestSlot else { return .NO }
        // Borrowed: HTTPServer owns the context and outlives the daemon.
        let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()

        guard let slot = requestSlot.pointee else {
            context.deadlines.headersArrived(connection)
            return begin(
                connection, url: url, method: method, version: version, requestSlot: requestSlot, context: context)
        }
        // Borrowed: the slot keeps the +1 until the completion callback.
        let request = Unmanaged<RequestContext>.fromOpaque(slot).takeUnretainedValue()

        let size = uploadDataSize.pointee
        if size > 0 {
            return receive(
                UnsafeRawBufferPointer(start: uploadData, count: size), into: request, context: context,
                consumed: uploadDataSize)
        }
        return finish(connection, request: request, context: context)
    }

    /// `MHD_RequestCompletedCallback`: libmicrohttpd is done with the request (answered, failed,
    /// timed out or shut down). Called once per request that reached `accessHandler`.
    static let requestCompleted: MHD_RequestCompletedCallback = {
        contextPointer, connection, requestSlot, termination in
        guard let contextPointer, let requestSlot, let slot = requestSlot.pointee else { return }
        requestSlot.pointee = nil
        // Takes back the +1 `begin` gave the slot; the request context is freed when this scope ends.
        let request = Unmanaged<RequestContext>.fromOpaque(slot).takeRetainedValue()
        let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()
        if let connection { context.deadlines.requestEnded(connection) }
        if let status = request.status, let log = context.accessLog {
            log(
                AccessLogEntry(
                    method: request.method, path: request.path, status: status, handled: request.handled,
                    responseBytes: request.responseBytes, requestBytes: request.body.count,
                    durationMicroseconds: microseconds(request.started.duration(to: .now)),
                    remoteAddress: request.remoteAddress,
                    completed: termination == .REQUEST_TERMINATED_COMPLETED_OK))
        }
        // Last, so that `stop` returning means every drained request has also been logged.
        context.inFlight.leave()
    }

    /// `MHD_NotifyConnectionCallback`: a connection opened or closed (closed before its socket
    /// is), for the request deadlines and the acceptor.
    static let connectionNotified: MHD_NotifyConnectionCallback = { contextPointer, connection, _, code in
        guard let contextPointer, let connection else { return }
        let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()
        switch code {
        case .CONNECTION_NOTIFY_STARTED:
            context.deadlines.opened(connection, socket: tl_mhd_connection_socket(connection))
        default:
            context.deadlines.closed(connection)
            context.acceptor.connectionClosed()
        }
    }

    // MARK: - The three phases of a request

    /// First call: the headers are in. Records the request and refuses a declared body over
    /// the limit at once, before the client sends it: with `Expect: 100-continue` libmicrohttpd
    /// then sends the 413 instead of `100 Continue`, and otherwise closes the connection after
    /// the answer rather than read the body.
    private static func begin(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?, requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
        context: DaemonContext
    ) -> MHD_Result {
        let fields = pairs(of: connection, kind: .HEADER_KIND)
        let request = RequestContext(
            method: method.map { String(cString: $0) } ?? "",
            path: url.map { String(cString: $0) } ?? "",
            remoteAddress: remoteAddress(of: connection),
            headers: HTTPHeaders(fields.map { HTTPHeaders.Field(name: $0.keyText, value: $0.valueText) }),
            started: .now)
        context.inFlight.enter()
        // The slot now owns a +1 on the request; `requestCompleted` releases it.
        requestSlot.pointee = Unmanaged.passRetained(request).toOpaque()

        if !headerSection(of: connection, method: method, version: version, fields: fields).hidesNothing {
            return queue(
                badRequest("a header field's value has a character it may not have"), on: connection, for: request,
                context: context)
        }
        if let problem = malformation(of: request.headers, version: version.map { String(cString: $0) } ?? "") {
            return queue(problem, on: connection, for: request, context: context)
        }
        if let declared = request.headers["Content-Length"], let length = UInt64(declared),
            length > UInt64(context.maximumBodyBytes)
        {
            request.tooLarge = true
            return queue(tooLargeResponse(context), on: connection, for: request, context: context)
        }
        return .YES
    }

    /// The 400 for a request whose header section a proxy in front may have read otherwise than
    /// libmicrohttpd did, or nil. Such a request is answered and its connection closed, as RFC
    /// 9112 asks, so no byte of it is read as another request (request smuggling):
    /// - a field name with a byte no name may have (section 5.1: whitespace before the colon
    ///   hides `Content-Length : 5` from libmicrohttpd's framing, which keeps the space in the
    ///   name), or a value with a byte no value may have (RFC 9110 section 5.5: a control
    ///   character other than a tab, such as a bare CR; a NUL ends the value libmicrohttpd hands
    ///   over, and `ParsedHeaderSection` finds what it hid);
    /// - a Host field missing from an HTTP/1.1 request, or more than one (section 3.2);
    /// - a body whose end is not said plainly: `Content-Length` fields that disagree, one beside
    ///   `Transfer-Encoding`, a `Transfer-Encoding` other than one field saying `chunked`
    ///   (sections 6.1 and 6.3), or one in an HTTP/1.0 request (section 6.1).
    static func malformation(of headers: HTTPHeaders, version: String) -> HTTPResponse? {
        var lengths: Set<String> = []
        var encodings: [String] = []
        var hosts = 0
        for field in headers {
            let (name, value) = (field.name, field.value)
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte), value.utf8.allSatisfy(isFieldValueByte) else {
                return badRequest("a header field's name or value has a character it may not have")
            }
            if HTTPHeaders.namesMatch(name, "Content-Length") {
                lengths.insert(value)
            } else if HTTPHeaders.namesMatch(name, "Transfer-Encoding") {
                encodings.append(value)
            } else if HTTPHeaders.namesMatch(name, "Host") {
                hosts += 1
            }
        }
        if hosts > 1 || (hosts == 0 && version == "HTTP/1.1") {
            return badRequest("an HTTP/1.1 request needs one Host field")
        }
        let plainlyChunked = encodings.count == 1 && isChunked(encodings[0]) && version != "HTTP/1.0"
        if lengths.count > 1 || (!encodings.isEmpty && (!lengths.isEmpty || !plainlyChunked)) {
            return badRequest(
                "the request's Content-Length and Transfer-Encoding fields do not say plainly where its body ends")
        }
        return nil
    }

    /// Whether a `Transfer-Encoding` value is `chunked` alone, in any case, as libmicrohttpd
    /// reads it.
    private static func isChunked(_ value: String) -> Bool {
        value.utf8.elementsEqual("chunked".utf8) { $0 | 0x20 == $1 }
    }

    /// A 400 after which the connection is closed.
    private static func badRequest(_ message: String) -> HTTPResponse {
        var response = HTTPResponse.error(.badRequest, message)
        response.headers.set("Connection", "close")
        return response
    }

    /// A piece of body: keeps it while the total stays within the limit, otherwise drops what
    /// was kept and only counts. Every byte is marked consumed so libmicrohttpd keeps reading.
    private static func receive(
        _ data: UnsafeRawBufferPointer, into request: RequestContext, context: DaemonContext,
        consumed uploadDataSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        uploadDataSize.pointee = 0
        request.receivedBytes += data.count
        // Already answered (refused at the headers): the body is only counted.
        if !request.tooLarge && request.status == nil {
            if request.body.count + data.count <= context.maximumBodyBytes {
                request.body.append(contentsOf: data)
            } else {
                request.tooLarge = true
                request.body = []
            }
        }
        // A chunked body far past the limit: stop reading and close rather than stream on.
        if request.tooLarge && request.receivedBytes > context.maximumBodyBytes + context.discardAllowanceBytes {
            return .NO
        }
        // A body trickling in just fast enough to beat the silence timeout is cut off by
        // `RequestDeadlines`, which also counts the time between pieces (a chunk's size line,
        // its extensions, the trailers) when this is not called.
        return .YES
    }

    /// Last call: the whole request is in. Answers 413 for a body that grew past the limit,
    /// otherwise calls the handler.
    private static func finish(
        _ connection: OpaquePointer, request: RequestContext, context: DaemonContext
    ) -> MHD_Result {
        context.deadlines.requestArrived(connection)
        // Refused at the headers: the answer is queued already.
        if request.status != nil { return .YES }
        if request.tooLarge {
            return queue(tooLargeResponse(context), on: connection, for: request, context: context)
        }
        let httpRequest = HTTPRequest(
            method: request.method, path: request.path,
            query: HTTPQuery(
                pairs(of: connection, kind: .GET_ARGUMENT_KIND).map {
                    HTTPQuery.Item(name: $0.keyText, value: $0.valueText)
                }),
            headers: request.headers,
            body: request.body, remoteAddress: request.remoteAddress)
        request.handled = true
        let response = context.handler(httpRequest)
        return queue(response, on: connection, for: request, context: context)
    }

    // MARK: - Responses

    private static func tooLargeResponse(_ context: DaemonContext) -> HTTPResponse {
        .error(.bodyTooLarge, "the request body is larger than \(context.maximumBodyBytes) bytes")
    }

    /// The answer sent in place of a response the adapter cannot send faithfully.
    private static let internalErrorResponse = HTTPResponse.error(.internalError, "internal error")

    /// Header fields the server derives from the body itself.
    private static let framingFields = ["Content-Length", "Transfer-Encoding"]

    /// Copies `response` into a libmicrohttpd response and queues it; records what was sent.
    private static func queue(
        _ response: HTTPResponse, on connection: OpaquePointer, for request: RequestContext,
        context: DaemonContext
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

        for field in response.headers where !framingFields.contains(where: { HTTPHeaders.namesMatch($0, field.name) }) {
            // MHD_add_response_header copies both strings.
            guard MHD_add_response_header(mhdResponse, field.name, field.value) == .YES else { return .NO }
        }
        if context.draining.load(ordering: .relaxed) && response.headers["Connection"] == nil {
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
            !field.name.isEmpty && field.name.utf8.allSatisfy(isTokenByte)
                && field.value.utf8.allSatisfy(isFieldValueByte)
        }
    }

    /// RFC 9110 section 5.5: the bytes a field value may contain, a tab, a space, visible
    /// characters and anything from 0x80 up; no other control character.
    private static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    /// RFC 9110 `tchar`: the bytes a field name may contain.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            tokenSymbols.contains(byte)
        }
    }

    private static let tokenSymbols = Array("!#$%&'*+-.^_`|~".utf8)

    // MARK: - Reading the request

    /// A key and value as libmicrohttpd holds them: in the connection's memory pool, valid
    /// while the request is handled, never kept beyond a callback.
    private struct Pair {
        let key: UnsafePointer<CChar>?
        let keyLength: Int
        let value: UnsafePointer<CChar>?
        let valueLength: Int

        var keyText: String { DaemonCallbacks.text(key, keyLength) }
        var valueText: String { DaemonCallbacks.text(value, valueLength) }
    }

    /// The key/value pairs of one kind (headers, query arguments) in the order received,
    /// already percent-decoded by libmicrohttpd for query arguments.
    private static func pairs(of connection: OpaquePointer, kind: MHD_ValueKind) -> [Pair] {
        var pairs: [Pair] = []
        // The iterator runs synchronously inside MHD_get_connection_values_n, so the pointer to
        // `pairs` it receives is valid for every call.
        withUnsafeMutablePointer(to: &pairs) { pairsPointer in
            _ = MHD_get_connection_values_n(
                connection, kind,
                { cls, _, key, keyLength, value, valueLength in
                    guard let pairs = cls?.assumingMemoryBound(to: [Pair].self) else { return .NO }
                    pairs.pointee.append(Pair(key: key, keyLength: keyLength, value: value, valueLength: valueLength))
                    return .YES
                }, pairsPointer)
        }
        return pairs
    }

    /// The request's header section as libmicrohttpd left it in its read buffer, from the
    /// method (where the request line starts) for `MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`
    /// bytes, with the header `fields` located in it. A NULL pointer (libmicrohttpd gives none
    /// here) is placed before the section, which `hidesNothing` refuses.
    private static func headerSection(
        of connection: OpaquePointer, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, fields: [Pair]
    ) -> ParsedHeaderSection {
        guard let method, let version else {
            return ParsedHeaderSection(
                bytes: UnsafeRawBufferPointer(start: nil, count: 0), requestLineEnd: -1, fields: [])
        }
        let start = UnsafeRawPointer(method)
        func offset(_ pointer: UnsafePointer<CChar>?) -> Int {
            pointer.map { start.distance(to: UnsafeRawPointer($0)) } ?? -1
        }
        return ParsedHeaderSection(
            bytes: UnsafeRawBufferPointer(start: start, count: tl_mhd_request_header_size(connection)),
            requestLineEnd: offset(version) + strlen(version),
            fields: fields.map { field in
                let (name, value) = (offset(field.key), offset(field.value))
                return ParsedHeaderSection.Field(
                    name: name..<(name + field.keyLength), value: value..<(value + field.valueLength))
            })
    }

    /// The bytes at `pointer` as UTF-8 text (invalid sequences replaced); empty for NULL.
    private static func text(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// The client's IP address as text, without the port; empty if libmicrohttpd has none.
    private static func remoteAddress(of connection: OpaquePointer) -> String {
        // Points into the connection, valid while it is open: read here, not kept.
        guard let address = tl_mhd_client_address(connection) else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>?
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                withUnsafePointer(to: ipv4.pointee.sin_addr) {
                    inet_ntop(AF_INET, $0, &buffer, socklen_t(buffer.count))
                }
            }
        case AF_INET6:
            written = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                withUnsafePointer(to: ipv6.pointee.sin6_addr) {
                    inet_ntop(AF_INET6, $0, &buffer, socklen_t(buffer.count))
                }
            }
        default:
            written = nil
        }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
