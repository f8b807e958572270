// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// Comma-separated values as RFC 4180 writes them, safe to open in a spreadsheet.
enum CSV {
    /// A text cell (a product, a storefront, a currency: signed fields, which may carry
    /// anything) as CSV, safe to open in a spreadsheet, following OWASP's advice on CSV
    /// injection:
    /// - control characters are escaped (`PrintableText`), so a cell holds no line break, and
    ///   neither a tab nor a carriage return (which OWASP lists too) can start it;
    /// - a cell starting with `=`, `+`, `-` or `@`, which a spreadsheet would run as a formula,
    ///   gets a leading `'`;
    /// - a cell holding a comma, a quote or a semicolon (the separator of some locales, where
    ///   `a;=cmd` would split into a formula cell) is quoted as RFC 4180 says.
    static func cell(_ text: String) -> String {
        var cell = PrintableText.escaped(text)
        if let first = cell.first, "=+-@".contains(first) { cell = "'" + cell }
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == ";" }) else { return cell }
        return "\"" + cell.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
