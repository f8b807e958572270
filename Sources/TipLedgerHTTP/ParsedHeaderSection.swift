// SPDX-License-Identifier: GPL-3.0-or-later

/// A request's header section as libmicrohttpd (0.9.75) leaves it in its read buffer after
/// parsing it in place, held against the fields it handed over, to find bytes those fields do
/// not show.
///
/// libmicrohttpd hands a field's value over as a C string measured with `strlen`
/// (`process_broken_line` in connection.c), so a NUL byte in a value ends it there and the rest
/// of its line is never seen: `Content-Length: 3\0 5` reads as 3, while a proxy that keeps the
/// whole value frames the body otherwise. Its own writes are known: a NUL over each line
/// ending's CR and LF (or a bare LF) and over each field's colon. So between the end of the
/// request line (its HTTP version) or of a field's value and the next field's name there may be
/// only a line ending's one or two NULs, between a colon and its value only spaces and tabs, and
/// after the last value only two line endings' NULs; any other byte was hidden behind a NUL in
/// a value. (A NUL just before a bare LF leaves the same two NULs as a CR LF. It hides no byte,
/// and RFC 9110 section 5.5 has a recipient reject it or read it as a space, so a proxy that
/// lets it through frames the request as libmicrohttpd does.)
///
/// libmicrohttpd parses the request line in place as well: a NUL over the space after the
/// method and over the one before the version; the spaces it skips before the target stay. A
/// NUL in the method or target ends the text it hands over there (`GET /metrics\0.css` is
/// routed as `/metrics`), so the request line is held against those parts too.
struct ParsedHeaderSection {
    /// Where the request line's parts lie, as offsets into the section.
    struct RequestLine: Equatable {
        /// Just past the method, which starts the section: libmicrohttpd's NUL.
        let methodEnd: Int
        /// The target's first byte.
        let targetStart: Int
        /// The HTTP version's first byte, just past libmicrohttpd's NUL that ends the target.
        let versionStart: Int
        /// Just past the HTTP version.
        let end: Int
    }

    /// Where a field's name and value lie, as offsets into the section.
    struct Field: Equatable {
        let name: Range<Int>
        let value: Range<Int>
    }

    /// The section, from the request line's first byte to the blank line's last.
    let bytes: UnsafeRawBufferPointer
    let requestLine: RequestLine
    /// How many bytes at the target's start a request line may hold, counted before
    /// libmicrohttpd parsed the target (`RequestContext.targetBytesAllowed`): by now it has put
    /// NULs over its `?`, `&` and `=`, and decoded its escapes, in place.
    let targetBytesAllowed: Int
    /// The fields in the order received.
    let fields: [Field]

    /// Whether the request line holds only bytes a request line may (`HTTPSyntax`) besides
    /// libmicrohttpd's NULs: the method, a NUL, the spaces skipped, the whole target as it
    /// came, a NUL, the version. False as well when a part does not lie where it would, or
    /// lies outside the section.
    var requestLineIsClean: Bool {
        let line = requestLine
        guard 0 < line.methodEnd, line.methodEnd < line.targetStart, line.targetStart < line.versionStart,
            line.versionStart <= line.end, line.end <= bytes.count
        else { return false }
        let targetEnd = line.versionStart - 1
        return bytes[..<line.methodEnd].allSatisfy(HTTPSyntax.isRequestLineByte) && bytes[line.methodEnd] == 0
            && bytes[(line.methodEnd + 1)..<line.targetStart].allSatisfy { $0 == 0x20 }
            && targetBytesAllowed == targetEnd - line.targetStart && bytes[targetEnd] == 0
    }

    /// Whether every byte is the request line, a field as handed over, or one of
    /// libmicrohttpd's NULs. False as well when a field does not lie where its line would (an
    /// obsolete line folding, which RFC 9112 section 5.2 lets a server refuse), or lies outside
    /// the section.
    var hidesNothing: Bool {
        guard (0...bytes.count).contains(requestLine.end) else { return false }
        var position = requestLine.end
        for field in fields {
            let (name, value) = (field.name, field.value)
            // In bounds and in order: the line ending, the name, the colon, the value.
            guard (1...2).contains(name.lowerBound - position), name.upperBound < value.lowerBound,
                value.upperBound <= bytes.count
            else { return false }
            guard bytes[position..<name.lowerBound].allSatisfy({ $0 == 0 }), bytes[name.upperBound] == 0,
                bytes[(name.upperBound + 1)..<value.lowerBound].allSatisfy(HTTPSyntax.isOptionalWhitespace)
            else { return false }
            position = value.upperBound
        }
        // The last line's ending and the blank line's.
        return (2...4).contains(bytes.count - position) && bytes[position...].allSatisfy { $0 == 0 }
    }
}
