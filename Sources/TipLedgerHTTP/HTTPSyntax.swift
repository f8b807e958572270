// SPDX-License-Identifier: GPL-3.0-or-later

/// The byte classes of HTTP's grammar the server checks requests and responses against, each
/// defined once (RFC 9110 and RFC 9112; docs/http.md says which request the server refuses).
enum HTTPSyntax {
    /// RFC 9110 `tchar`: the bytes a field name (or a method) may contain.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            tokenSymbols.contains(byte)
        }
    }

    private static let tokenSymbols = Array("!#$%&'*+-.^_`|~".utf8)

    /// RFC 9110 section 5.5: the bytes a field value may contain, a tab, a space, visible
    /// characters and anything from 0x80 up; no other control character.
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    /// The bytes the server takes in a request line's method and target: a space (libmicrohttpd
    /// reads a target with one), visible characters and anything from 0x80 up. A control
    /// character, NUL and tab included, is refused: a NUL ends the text libmicrohttpd hands
    /// over (`GET /metrics\0.css` would be routed as `/metrics`), and a proxy may split the line
    /// at a tab or another whitespace control (RFC 9112 section 3) where libmicrohttpd does not.
    static func isRequestLineByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != 0x7F
    }

    /// RFC 9110 `OWS`: the whitespace around a field value or between its words, a space or a
    /// horizontal tab.
    static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// Whether two texts are equal ignoring ASCII case, as field names (RFC 9110 section 5.1),
    /// auth schemes and transfer codings compare.
    static func equalIgnoringASCIICase(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { lowercased($0) == lowercased($1) }
    }

    /// The path of a request target in origin form (`/v1/report`), the form the routes read. An
    /// absolute-form target (`http://host/v1/report`), which clients send to proxies and a
    /// server must accept all the same (RFC 9112 section 3.2.2), loses its scheme and
    /// authority; any other target is returned as it is. libmicrohttpd hands over the target
    /// without its query.
    static func originForm(of target: String) -> String {
        for scheme in ["http://", "https://"] {
            let bytes = target.utf8
            guard equalIgnoringASCIICase(bytes.prefix(scheme.utf8.count), scheme.utf8) else { continue }
            let afterScheme = bytes.index(bytes.startIndex, offsetBy: scheme.utf8.count)
            guard let slash = bytes[afterScheme...].firstIndex(of: UInt8(ascii: "/")) else { return "/" }
            return String(target[slash...])
        }
        return target
    }

    /// `byte` with an ASCII capital letter made small.
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
