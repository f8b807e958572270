// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// The password of an `Authorization: Basic` credential (RFC 7617), the browser's own way to
/// send one: asked by a `WWW-Authenticate: Basic` challenge, it prompts for a user name and a
/// password and sends `Basic base64(user ":" password)`. The report page takes the API token
/// as the password, whatever the user name.
enum BasicCredentials {
    /// The challenge a 401 of the page sends; UTF-8, as the token may be any printable text.
    static let challenge = #"Basic realm="tipledger", charset="UTF-8""#

    /// The password `field` carries (an Authorization field's value, trailing whitespace
    /// removed), or nil when it names another scheme or its credential is not a user id and a
    /// password in strict base64.
    static func password(in field: [UInt8]) -> [UInt8]? {
        // The scheme name is case-insensitive (RFC 9110 section 11.1); one or more spaces
        // follow it (section 11.4).
        let scheme = "basic".utf8
        guard field.count > scheme.count, field[scheme.count] == 0x20,
            HTTPSyntax.equalIgnoringASCIICase(field.prefix(scheme.count), scheme)
        else { return nil }
        let encoded = field.dropFirst(scheme.count).drop { $0 == 0x20 }
        guard let decoded = Base64.decode(String(decoding: encoded, as: UTF8.self), alphabet: .standard),
            let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        return Array(decoded[(colon + 1)...])
    }
}
