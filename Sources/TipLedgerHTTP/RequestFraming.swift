// SPDX-License-Identifier: GPL-3.0-or-later

/// The rules a request's header section keeps, or is refused with 400 and its connection
/// closed, as RFC 9112 asks, so that no byte of it is read as another request (request
/// smuggling): a proxy in front must not be able to read the request otherwise than
/// libmicrohttpd does. docs/http.md lists them for clients.
enum RequestFraming {
    /// The 400 for a request line holding a byte no request line may (`HTTPSyntax`), which
    /// `ParsedHeaderSection` finds where libmicrohttpd hands over text cut short.
    static var forbiddenRequestLineByte: HTTPResponse {
        badRequest("the request line has a character it may not have")
    }

    /// The 400 for a header section whose bytes `ParsedHeaderSection` finds hidden from the
    /// fields libmicrohttpd hands over.
    static var hiddenBytes: HTTPResponse { badRequest("a header field's value has a character it may not have") }

    /// The 400 for a request whose fields break a framing rule, or nil:
    /// - a field name with a byte no name may have (RFC 9112 section 5.1: whitespace before the
    ///   colon hides `Content-Length : 5` from libmicrohttpd's framing, which keeps the space in
    ///   the name), or a value with a byte no value may have (RFC 9110 section 5.5: a control
    ///   character other than a tab, such as a bare CR; a NUL ends the value libmicrohttpd hands
    ///   over, and `ParsedHeaderSection` finds what it hid);
    /// - a Host field missing from an HTTP/1.1 request, or more than one (RFC 9112 section 3.2);
    /// - a body whose end is not said plainly: `Content-Length` fields that disagree, one beside
    ///   `Transfer-Encoding`, a `Transfer-Encoding` other than one field saying `chunked`
    ///   (sections 6.1 and 6.3), or one in an HTTP/1.0 request (section 6.1).
    static func refusal(of headers: HTTPHeaders, version: String) -> HTTPResponse? {
        var lengths: Set<String> = []
        var encodings: [String] = []
        var hosts = 0
        for field in headers {
            let (name, value) = (field.name, field.value)
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPSyntax.isTokenByte),
                value.utf8.allSatisfy(HTTPSyntax.isFieldValueByte)
            else {
                return badRequest("a header field's name or value has a character it may not have")
            }
            if FieldNames.match(name, "Content-Length") {
                lengths.insert(value)
            } else if FieldNames.match(name, "Transfer-Encoding") {
                encodings.append(value)
            } else if FieldNames.match(name, "Host") {
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
        HTTPSyntax.equalIgnoringASCIICase(value.utf8, "chunked".utf8)
    }

    /// A 400 after which the connection is closed.
    static func badRequest(_ message: String) -> HTTPResponse {
        var response = HTTPResponse.error(.badRequest, message)
        response.headers.set("Connection", "close")
        return response
    }
}
