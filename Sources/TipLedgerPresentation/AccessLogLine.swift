// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
internal import TipLedgerStore

/// One access-log line: time, client, method, path, status, size, duration. Identifiers in the
/// path (account UUIDs) are replaced, so is any segment too long for a route's (a token or a JWS
/// sent in the path by mistake), and query strings, headers and bodies never appear.
public enum AccessLogLine {
    /// Longest path segment logged as it is: no route's segment is longer than a UUID.
    static let longestSegment = 36

    /// The line for one answered request: its `method` and `path` as received (the path
    /// percent-decoded, without the query), the `status` and `responseBytes` sent,
    /// `durationMicroseconds` from its headers arriving to the response's hand-over, and the
    /// client's `remoteAddress`.
    public static func format(
        method: String, path: String, status: Int, responseBytes: Int, durationMicroseconds: Int64,
        remoteAddress: String, at time: AppleDate
    ) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        // What follows "accounts" is an account however it is written (a UUID without its dashes,
        // in capitals); so is a UUID anywhere else. The path arrives percent-decoded: a `%0A` or
        // `%1B` in it must not start a forged line or drive the terminal, nor a `%20` split the
        // line's fields.
        let logged = PrintableText.escaped(
            segments.indices.map { index in
                let segment = segments[index]
                if index > 0 && segments[index - 1] == "accounts" && !segment.isEmpty { return ":account" }
                if Ledger.isAccountToken(String(segment)) { return ":account" }
                return segment.utf8.count > longestSegment ? ":long" : String(segment)
            }.joined(separator: "/"), escapingSpaces: true)
        let milliseconds = Double(durationMicroseconds) / 1000
        let duration = milliseconds < 10 ? String(Double(Int(milliseconds * 100)) / 100) : String(Int(milliseconds))
        let method = PrintableText.escaped(method, escapingSpaces: true).prefix(20)
        return "\(time) \(remoteAddress) \(method) \(logged.prefix(200)) \(status) \(responseBytes)B \(duration)ms"
    }
}
