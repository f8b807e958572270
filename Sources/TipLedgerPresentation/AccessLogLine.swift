// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// One access-log line: time, client, method, path, status, size, duration. The path comes with
/// identifiers and overlong segments masked already (the HTTP module's
/// `AccessLogEntry.loggedPath`, which knows the routes); query strings, headers and bodies never
/// appear.
public enum AccessLogLine {
    /// The line for one answered request: its `method` as received and its `path` as a log may
    /// show it, the `status` and `responseBytes` sent, `durationMicroseconds` from its headers
    /// arriving to the response's hand-over, and the client's `remoteAddress`.
    public static func format(
        method: String, path: String, status: Int, responseBytes: Int, durationMicroseconds: Int64,
        remoteAddress: String, at time: AppleDate
    ) -> String {
        // The path arrives percent-decoded: a `%0A` or `%1B` in it must not start a forged line
        // or drive the terminal, nor a `%20` split the line's fields.
        let logged = PrintableText.escaped(path, escapingSpaces: true)
        let milliseconds = Double(durationMicroseconds) / 1000
        let duration = milliseconds < 10 ? String(Double(Int(milliseconds * 100)) / 100) : String(Int(milliseconds))
        let method = PrintableText.escaped(method, escapingSpaces: true).prefix(20)
        return "\(time) \(remoteAddress) \(method) \(logged.prefix(200)) \(status) \(responseBytes)B \(duration)ms"
    }
}
