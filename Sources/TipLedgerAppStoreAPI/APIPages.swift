// SPDX-License-Identifier: GPL-3.0-or-later

/// The pages of a paged endpoint, each fetched with one request (retries aside) when `next()`
/// asks for it.
///
/// Each page names the next with a cursor (`paginationToken` or `revision`) and says whether
/// one follows (`hasMore`). `cursor` is the last cursor received: stored after a page is
/// processed, it lets a later walk resume after that page. A page claiming more without a new
/// cursor, or naming one this walk asked with already (pages that go round), fails as
/// `malformedResponse` rather than being fetched again for ever; so does a walk past
/// `pageLimit` pages, whose cursors would otherwise be kept without bound.
public struct APIPages<Page: Sendable>: Sendable {
    /// The most pages one walk fetches: 2,000,000 notifications at Apple's 20 a page, more than
    /// a tip jar's window holds. A stored cursor lets the next walk go on from where this
    /// one stopped.
    package var pageLimit = 100_000
    /// The cursor the next request sends (nil before the first page of a fresh walk).
    public private(set) var cursor: String?
    /// Every cursor this walk asked with, the one it resumed after included.
    private var asked: Set<String>
    private var finished = false
    /// Pages fetched by this walk.
    private var fetched = 0
    private let fetch: @Sendable (String?) throws(AppStoreAPIError) -> Page
    private let progress: @Sendable (Page) -> (hasMore: Bool, cursor: String?)
    private let endpoint: Endpoint

    init(
        _ endpoint: Endpoint, resumingAfter cursor: String?,
        fetch: @escaping @Sendable (String?) throws(AppStoreAPIError) -> Page,
        progress: @escaping @Sendable (Page) -> (hasMore: Bool, cursor: String?)
    ) {
        self.endpoint = endpoint
        self.cursor = cursor
        asked = cursor.map { [$0] } ?? []
        self.fetch = fetch
        self.progress = progress
    }

    /// The next page, or nil after the page that said no more follow.
    public mutating func next() throws(AppStoreAPIError) -> Page? {
        guard !finished else { return nil }
        guard fetched < pageLimit else {
            throw AppStoreAPIError(
                .malformedResponse,
                "\(endpoint.name): more than \(pageLimit) pages in one walk; it stops here, and the next resumes "
                    + "after the last page recorded")
        }
        let page = try fetch(cursor)
        fetched += 1
        let (hasMore, next) = progress(page)
        if hasMore {
            guard let next, !next.isEmpty, next != cursor else {
                throw AppStoreAPIError(
                    .malformedResponse, "\(endpoint.name): a page says more follow but names no new page to ask for")
            }
            guard asked.insert(next).inserted else {
                throw AppStoreAPIError(
                    .malformedResponse, "\(endpoint.name): a page says more follow but names a page already walked")
            }
        }
        if let next { cursor = next }
        finished = !hasMore
        return page
    }
}
