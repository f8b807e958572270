// SPDX-License-Identifier: GPL-3.0-or-later

/// The report page's style sheet, inline: the page loads nothing. Colours follow the reader's
/// light or dark setting; the series colours are Okabe and Ito's, told apart with the common
/// colour vision deficiencies. It holds no `<`, `>` or `&`, so the page stays well-formed XML.
enum ReportPageStyle {
    /// The Content-Security-Policy the page carries (a `meta` element) and `serve` sends with it:
    /// no script, no request of any kind, but the inline styles and the empty icon.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

    /// Classes of the series colours, in the order they are given to products: the most tipped
    /// first; the last stands for every other product.
    static let seriesStyles = ["s0", "s1", "s2", "s3", "s4", "s5", "s6"]
    /// The class of refunded and revoked amounts.
    static let refundStyle = "refund"

    static let css: StaticString = """
        :root{color-scheme:light dark;--bg:#ffffff;--fg:#1d1d1f;--muted:#5f6368;--line:#d9d9de;--card:#f4f4f6;\
        --zero:#6e6e73;--c0:#0072b2;--c1:#e69f00;--c2:#009e73;--c3:#cc79a7;--c4:#56b4e9;--c5:#a08a00;\
        --c6:#a3a3a8;--refund:#c23b22}
        @media (prefers-color-scheme:dark){:root{--bg:#141416;--fg:#f2f2f5;--muted:#a1a1a8;--line:#3a3a3e;\
        --card:#222226;--zero:#8e8e93;--c0:#3d9be0;--c1:#f2ad1f;--c2:#23b58a;--c3:#dc8fbb;--c4:#7cc7f0;\
        --c5:#e0c93a;--c6:#6e6e74;--refund:#ff6b5e}}
        *{box-sizing:border-box}
        body{margin:0 auto;max-width:1000px;padding:24px 20px 48px;background:var(--bg);color:var(--fg);\
        font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
        h1{font-size:28px;margin:0 0 4px}
        h2{font-size:21px;margin:36px 0 10px;padding-top:14px;border-top:1px solid var(--line)}
        h3{font-size:16px;margin:22px 0 6px}
        .meta,.note{color:var(--muted);font-size:13px;margin:4px 0}
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:12px}
        .card{background:var(--card);border-radius:12px;padding:14px 16px}
        .card h3{margin:0;font-size:13px;color:var(--muted);font-weight:600}
        .card .net{font-size:26px;font-weight:650;margin:2px 0 0;font-variant-numeric:tabular-nums}
        .card dl{display:grid;grid-template-columns:1fr auto;gap:2px 12px;margin:8px 0 0;font-size:13px}
        .card dt{color:var(--muted)}
        .card dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
        .pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:8px 24px}
        figure{margin:10px 0 18px}
        figcaption{font-weight:600;margin-bottom:4px}
        svg.chart{display:block;width:100%;height:auto}
        svg text{fill:var(--muted);font-size:12px}
        svg .tick,svg .name{text-anchor:end}
        svg .name{fill:var(--fg)}
        svg .label,svg .axis-title{text-anchor:middle}
        svg .grid{stroke:var(--line);stroke-width:1}
        svg .zero{stroke:var(--zero);stroke-width:1.5}
        .s0{fill:var(--c0);background:var(--c0)}
        .s1{fill:var(--c1);background:var(--c1)}
        .s2{fill:var(--c2);background:var(--c2)}
        .s3{fill:var(--c3);background:var(--c3)}
        .s4{fill:var(--c4);background:var(--c4)}
        .s5{fill:var(--c5);background:var(--c5)}
        .s6{fill:var(--c6);background:var(--c6)}
        .refund{fill:var(--refund);background:var(--refund)}
        .legend{list-style:none;padding:0;margin:6px 0 0;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px}
        .legend .key{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;\
        vertical-align:-1px}
        table{border-collapse:collapse;font-size:13px;width:100%;margin:6px 0}
        th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
        th{color:var(--muted);font-weight:600}
        .n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
        details{margin:2px 0 10px}
        summary{cursor:pointer;color:var(--muted);font-size:13px}
        .empty{background:var(--card);border-radius:12px;padding:28px;text-align:center;margin-top:20px}
        .empty h2{margin:0 0 10px;padding:0;border:0}
        code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
        footer{margin-top:40px;color:var(--muted);font-size:12px}
        """
}
