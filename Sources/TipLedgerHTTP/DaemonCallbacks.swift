// SPDX-License-Identifier: GPL-3.0-or-later
internal import CMicroHTTPD

/// The C callbacks libmicrohttpd calls on its worker threads: they follow a request through its
/// phases and leave each rule to its own type (`ParsedHeaderSection` and `RequestFraming` for
/// what a request may hold, `BodyLimit` for its size, `ResponseQueue` for what goes back).
///
/// A plain nonisolated type on purpose: top-level code and anything main-actor isolated would be
/// entered from a foreign thread. The callbacks reach only `DaemonContext` (Sendable) and the
/// request's own `RequestContext`, which libmicrohttpd never hands to two threads at once.
enum DaemonCallbacks {
    /// `MHD_OPTION_URI_LOG_CALLBACK`: called once per request as soon as its request line is
    /// read, with the target as it came, before libmicrohttpd parses it in place ("log callback
    /// before we modify URI *or* args", connection.c): the one moment its bytes can be counted.
    /// What it returns becomes the request's `*con_cls`, and libmicrohttpd calls the completion
    /// callback for every request it was called for.
    static let requestLineRead: TLURILogCallback = { _, target, _ in
        var allowed = 0
        // The target ends at the NUL libmicrohttpd put over the space before the version, and
        // a NUL is no byte a request line may hold: the count stops there at the latest.
        if let target {
            while HTTPSyntax.isRequestLineByte(UInt8(bitPattern: target[allowed])) { allowed += 1 }
        }
        // The slot owns a +1 on the request; `requestCompleted` releases it.
        return Unmanaged.passRetained(RequestContext(targetBytesAllowed: allowed)).toOpaque()
    }

    /// `MHD_AccessHandlerCallback`: called once when the headers are in (the request's head is
    /// still nil), once per piece of body (`*upload_data_size` > 0), and once more with no data
    /// when the whole request has arrived. The manual: "The response cannot be queued when this
    /// callback is called to process the client upload data", so answers are queued only on the
    /// first or the last call. Returning `MHD_NO` closes the connection without an answer.
    static let accessHandler: MHD_AccessHandlerCallback = {
        contextPointer, connection, url, method, version, uploadData, uploadDataSize, requestSlot in
        // No request context: `requestLineRead` makes one for every request.
        guard let contextPointer, let connection, let uploadDataSize, let slot = requestSlot?.pointee else {
            return .NO
        }
        // Borrowed: HTTPServer owns the context and outlives the daemon.
        let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()
        // Borrowed: the slot keeps the +1 until the completion callback.
        let request = Unmanaged<RequestContext>.fromOpaque(slot).takeUnretainedValue()

        guard let head = request.head else {
            context.deadlines.headersArrived(connection)
            return begin(
                MHDConnection(pointer: connection), url: url, method: method, version: version, request: request,
                context: context)
        }
        let size = uploadDataSize.pointee
        if size > 0 {
            // Every byte is marked consumed so libmicrohttpd keeps reading. A body trickling in
            // just fast enough to beat the silence timeout is cut off by `RequestDeadlines`,
            // which also counts the time between pieces (a chunk's size line, its extensions,
            // the trailers) when this is not called.
            uploadDataSize.pointee = 0
            let data = UnsafeRawBufferPointer(start: uploadData, count: size)
            return context.bodyLimit.receive(data, into: request) ? .YES : .NO
        }
        return finish(MHDConnection(pointer: connection), request: request, head: head, context: context)
    }

    /// `MHD_RequestCompletedCallback`: libmicrohttpd is done with the request (answered, failed,
    /// timed out or shut down). Called once per request `requestLineRead` saw.
    static let requestCompleted: MHD_RequestCompletedCallback = {
        contextPointer, connection, requestSlot, termination in
        guard let contextPointer, let requestSlot, let slot = requestSlot.pointee else { return }
        requestSlot.pointee = nil
        // Takes back the +1 `requestLineRead` gave the slot; the request context is freed when
        // this scope ends.
        let request = Unmanaged<RequestContext>.fromOpaque(slot).takeRetainedValue()
        // Ended before its headers were in: never counted in flight, never answered by us.
        guard let head = request.head else { return }
        let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()
        if let connection { context.deadlines.requestEnded(connection) }
        if let status = request.status, let log = context.accessLog {
            log(
                AccessLogEntry(
                    method: head.method, path: head.path, status: status, handled: request.handled,
                    responseBytes: request.responseBytes, requestBytes: request.body.count,
                    durationMicroseconds: microseconds(head.started.duration(to: .now)),
                    remoteAddress: head.remoteAddress,
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

    // MARK: - The first and the last call of a request

    /// First call: the headers are in. Records the request's head, then refuses it at once,
    /// before the client sends a body, when its request line or header section breaks a rule or
    /// it declares a body over the limit.
    private static func begin(
        _ connection: MHDConnection, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?, request: RequestContext, context: DaemonContext
    ) -> MHD_Result {
        let fields = connection.pairs(.HEADER_KIND)
        let head = RequestContext.Head(
            method: method.map { String(cString: $0) } ?? "",
            path: HTTPSyntax.originForm(of: url.map { String(cString: $0) } ?? ""),
            remoteAddress: connection.remoteAddress,
            headers: HTTPHeaders(fields.map { HTTPHeaders.Field(name: $0.keyText, value: $0.valueText) }),
            started: .now)
        request.head = head
        context.inFlight.enter()

        let section = connection.headerSection(
            method: method, url: url, version: version, targetBytesAllowed: request.targetBytesAllowed,
            fields: fields)
        let refusal: HTTPResponse?
        if !section.requestLineIsClean {
            refusal = RequestFraming.forbiddenRequestLineByte
        } else if !section.hidesNothing {
            refusal = RequestFraming.hiddenBytes
        } else if let broken = RequestFraming.refusal(
            of: head.headers, version: version.map { String(cString: $0) } ?? "")
        {
            refusal = broken
        } else if context.bodyLimit.refusesDeclaredLength(in: head.headers) {
            request.tooLarge = true
            refusal = context.bodyLimit.response
        } else {
            refusal = nil
        }
        guard let refusal else { return .YES }
        return queue(refusal, on: connection, for: request, context: context)
    }

    /// Last call: the whole request is in. Answers 413 for a body that grew past the limit,
    /// otherwise calls the answerer; an answer it gives later suspends the connection, and
    /// libmicrohttpd calls this again once it is resumed, to send it.
    private static func finish(
        _ connection: MHDConnection, request: RequestContext, head: RequestContext.Head, context: DaemonContext
    ) -> MHD_Result {
        context.deadlines.requestArrived(connection.pointer)
        // Refused at the headers: the answer is queued already.
        if request.status != nil { return .YES }
        if let deferred = request.deferred {
            // Resumed: answered, or abandoned as the server stops.
            return queue(
                deferred.response ?? DeferredResponse.abandonedResponse, on: connection, for: request, context: context)
        }
        if request.tooLarge {
            return queue(context.bodyLimit.response, on: connection, for: request, context: context)
        }
        let httpRequest = HTTPRequest(
            method: head.method, path: head.path,
            query: HTTPQuery(
                connection.pairs(.GET_ARGUMENT_KIND).map { HTTPQuery.Item(name: $0.keyText, value: $0.valueText) }),
            headers: head.headers,
            body: request.body, remoteAddress: head.remoteAddress)
        request.handled = true
        switch context.answerer(httpRequest) {
        case .now(let response):
            return queue(response, on: connection, for: request, context: context)
        case .later(let deferred):
            request.deferred = deferred
            guard context.suspended.suspend(connection.pointer, until: deferred) else {
                // The server is stopping: no connection may be suspended now.
                _ = deferred.abandon()
                return queue(DeferredResponse.abandonedResponse, on: connection, for: request, context: context)
            }
            return .YES
        }
    }

    private static func queue(
        _ response: HTTPResponse, on connection: MHDConnection, for request: RequestContext, context: DaemonContext
    ) -> MHD_Result {
        ResponseQueue.queue(
            response, on: connection.pointer, for: request, draining: context.draining.load(ordering: .relaxed))
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
