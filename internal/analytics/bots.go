package analytics

import (
	"strings"
	"sync"
)

// botMarks are parts of the User-Agent of clients that are not readers:
// crawlers, link previews, monitors, scripts and headless browsers. They
// are matched in lower case.
var botMarks = []string{
	"bot", "crawl", "spider", "slurp", "archiver", "facebookexternalhit", "mediapartners",
	"feedfetcher", "preview", "lighthouse", "pingdom", "uptime", "headless", "phantomjs",
	"curl/", "wget/", "go-http-client", "python-requests", "python-urllib", "aiohttp", "httpx",
	"okhttp", "java/", "libwww", "scrapy", "httpclient", "node-fetch", "axios/",
}

// IsBot reports whether a request with this User-Agent is left out of the
// page views: no User-Agent at all (every browser sends one), or one that
// names a crawler, a monitor, a script or a headless browser.
func IsBot(userAgent string) bool {
	if userAgent == "" {
		return true
	}
	ua := strings.ToLower(userAgent)
	for _, m := range botMarks {
		if strings.Contains(ua, m) {
			return true
		}
	}
	return false
}

// BotCache remembers IsBot's answers for the User-Agents seen lately, so
// that a page view costs a map look-up rather than a scan of the marks:
// readers' browsers send few distinct values. Its zero value is ready.
type BotCache struct {
	mu   sync.RWMutex
	seen map[string]bool
}

// maxBotCache bounds the User-Agents a BotCache remembers; when full, it
// starts over.
const maxBotCache = 4096

// IsBot is IsBot(userAgent), remembered. userAgent need not outlive the
// call: the cache keeps a copy.
func (c *BotCache) IsBot(userAgent string) bool {
	c.mu.RLock()
	bot, ok := c.seen[userAgent]
	c.mu.RUnlock()
	if ok {
		return bot
	}
	ua := strings.Clone(userAgent)
	bot = IsBot(ua)
	c.mu.Lock()
	if c.seen == nil || len(c.seen) >= maxBotCache {
		c.seen = make(map[string]bool)
	}
	c.seen[ua] = bot
	c.mu.Unlock()
	return bot
}
