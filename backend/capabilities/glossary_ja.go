package capabilities

import (
	"slices"
	"strings"
	"sync"
)

// A Japanese query meets tools described in English through this glossary:
// the Japanese words for the words tools are most often named with (the
// 400 most frequent words in the names of the retrieval evaluation's 3,300
// public tools, chosen before any Japanese query was read), in their usual
// written forms (kanji compounds, katakana loanwords, verb stems that match
// every inflection: 検索, ファイル, 読み/読む/読ん). A Japanese word found in a
// query adds its English words to the search at jaWeight. Chinese-described
// tools are met directly: Han characters are indexed as they are.
var glossaryJA = map[string]string{
	// actions
	"取得": "get fetch retrieve", "取って": "get fetch", "取り出": "extract", "一覧": "list", "リスト": "list",
	"検索": "search find query", "探し": "search find", "探す": "search find", "調べ": "search lookup check",
	"作成": "create", "作っ": "create make", "作る": "create make", "作り": "create make", "新規": "create new",
	"生成": "generate create", "追加": "add", "加え": "add", "更新": "update", "変更": "update change edit",
	"編集": "edit update", "削除": "delete remove", "消し": "delete remove", "消す": "delete remove",
	"読み込": "read load", "読み": "read", "読む": "read", "読ん": "read", "書き込": "write", "書き": "write",
	"書く": "write", "書い": "write", "保存": "save write", "送信": "send", "送っ": "send", "送る": "send",
	"投稿": "post publish", "実行": "execute run", "走ら": "run", "起動": "start launch", "開始": "start",
	"停止": "stop", "止め": "stop", "変換": "convert", "抽出": "extract", "分析": "analyze analysis",
	"解析": "analyze parse", "要約": "summarize summary", "確認": "check status", "チェック": "check",
	"設定": "set config settings", "ダウンロード": "download", "アップロード": "upload", "インポート": "import",
	"エクスポート": "export", "出力": "export output", "表示": "show view display", "見せ": "show", "見る": "view",
	"開い": "open", "開く": "open", "閉じ": "close", "移動": "move", "コピー": "copy", "複製": "copy",
	"名前を変": "rename", "名前変更": "rename", "置換": "replace", "置き換": "replace", "計算": "calculate compute",
	"予測": "predict forecast", "予報": "forecast", "評価": "evaluate", "検証": "validate verify", "比較": "compare diff",
	"翻訳": "translate", "監視": "monitor", "追跡": "track", "記録": "record log", "登録": "register add",
	"購読": "subscribe subscription", "予約": "book reserve", "スケジュール": "schedule", "クリック": "click",
	"入力": "fill type input", "選択": "select", "移動し": "navigate", "アクセス": "navigate access",
	"スクリーンショット": "screenshot", "スクショ": "screenshot", "撮っ": "screenshot capture", "撮影": "screenshot capture",
	"描い": "draw", "描く": "draw", "描画": "draw render", "可視化": "chart visualize", "グラフ": "chart graph",
	"図": "chart diagram", "まとめ": "summary summarize", "整理": "organize", "レビュー": "review", "承認": "approve",
	"マージ": "merge", "デプロイ": "deploy", "ビルド": "build", "テスト": "test", "スキャン": "scan",
	"問い合わせ": "query", "クエリ": "query", "呼び出": "call", "返信": "reply", "コメント": "comment",
	"通知": "notification notify", "アラート": "alert", "推薦": "recommend", "おすすめ": "recommend", "勧め": "recommend",
	// things
	"ファイル": "file", "フォルダ": "folder directory", "ディレクトリ": "directory", "パス": "path",
	"ドキュメント": "document docs", "文書": "document", "ワード": "word document docx", "エクセル": "excel sheet xlsx",
	"スプレッドシート": "spreadsheet sheet", "シート": "sheet", "表": "table", "テーブル": "table",
	"プレゼン": "presentation slide ppt pptx", "スライド": "slide", "パワーポイント": "powerpoint ppt presentation",
	"ページ": "page", "ウェブ": "web", "サイト": "site website", "ブラウザ": "browser", "リンク": "link url",
	"画像": "image picture", "写真": "image photo", "アイコン": "icon", "動画": "video", "音声": "audio",
	"音楽": "music audio", "テキスト": "text", "文章": "text content", "内容": "content", "本文": "content body",
	"マークダウン": "markdown", "データ": "data", "データセット": "dataset", "データベース": "database",
	"情報": "info details", "詳細": "details detail info", "状態": "status state", "ステータス": "status",
	"履歴": "history log", "ログ": "log logs", "記事": "article post", "論文": "paper papers arxiv",
	"ニュース": "news", "トレンド": "trending trend", "ランキング": "rank ranking top", "人気": "trending popular top",
	"最新": "latest recent", "最近": "recent latest", "現在": "current", "今日": "today current", "天気": "weather forecast",
	"気温": "temperature weather", "時刻": "time", "時間": "time", "日付": "date", "カレンダー": "calendar",
	"イベント": "event", "会議": "meeting", "予定": "event schedule calendar", "タスク": "task todo", "やること": "todo task",
	"メモ": "note memo", "ノート": "note", "メモリ": "memory", "記憶": "memory", "知識": "knowledge",
	"メール": "email mail", "メッセージ": "message", "チャット": "chat message", "チャンネル": "channel",
	"ユーザー": "user", "ユーザ": "user", "アカウント": "account", "プロフィール": "profile", "チーム": "team",
	"組織": "organization org", "メンバー": "member", "連絡先": "contact", "プロジェクト": "project",
	"リポジトリ": "repository repo", "レポジトリ": "repository repo", "ブランチ": "branch", "コミット": "commit",
	"プルリクエスト": "pull request", "プルリク": "pull request", "イシュー": "issue", "課題": "issue",
	"バグ": "bug issue", "リリース": "release", "タグ": "tag", "ラベル": "label", "ワークフロー": "workflow",
	"パッケージ": "package", "ライブラリ": "library package", "依存": "dependency dependencies",
	"バージョン": "version", "コード": "code", "スクリプト": "script", "関数": "function", "コマンド": "command",
	"シェル": "shell", "ターミナル": "terminal shell", "プロセス": "process", "コンテナ": "container docker",
	"サーバー": "server", "サーバ": "server", "ドメイン": "domain whois", "アドレス": "address", "住所": "address",
	"地図": "map", "場所": "place location", "位置": "location", "経路": "route directions", "ルート": "route",
	"道順": "directions route", "近く": "nearby", "周辺": "nearby around", "距離": "distance", "駐車場": "parking",
	"レストラン": "restaurant", "ホテル": "hotel", "宿": "hotel listing", "旅行": "travel trip", "電車": "train",
	"列車": "train", "チケット": "ticket", "切符": "ticket", "駅": "station",
	"株": "stock", "株価": "stock price", "銘柄": "ticker stock symbol", "価格": "price", "値段": "price",
	"料金": "price fee", "為替": "exchange rate currency", "通貨": "currency", "暗号資産": "crypto", "仮想通貨": "crypto",
	"ビットコイン": "bitcoin btc crypto", "トークン": "token", "ウォレット": "wallet", "残高": "balance",
	"取引": "transaction trade", "市場": "market", "財務": "financial finance", "決算": "financial earnings",
	"売上": "revenue sales", "収益": "revenue income", "ニュース記事": "news article",
	"レシピ": "recipe", "料理": "recipe dish cook", "献立": "meal recipe", "食材": "ingredient", "材料": "ingredient",
	"ゲーム": "game", "チャンピオン": "champion", "キャラクター": "character", "キャラ": "character",
	"チェス": "chess", "乱数": "random", "ランダム": "random", "数学": "math", "単位": "unit",
	"病気": "disease", "薬": "drug", "遺伝子": "gene", "臨床試験": "trial clinical", "治験": "trial clinical",
	"美術館": "museum", "博物館": "museum", "作品": "artwork object", "百科": "wikipedia", "ウィキペディア": "wikipedia",
	"サイトマップ": "sitemap", "字幕": "transcript", "文字起こし": "transcript", "動画の字幕": "transcript",
	"モデル": "model", "エージェント": "agent", "プロンプト": "prompt", "テンプレート": "template",
	"スキーマ": "schema", "レポート": "report", "報告": "report", "結果": "results", "統計": "stats statistics",
	"数": "count number", "全て": "all", "すべて": "all", "複数": "multiple batch", "一括": "batch bulk",
	"セッション": "session", "設定ファイル": "config", "環境変数": "environment variable env", "秘密": "secret",
	"権限": "permission", "請求書": "invoice", "請求": "billing invoice", "支払": "payment", "注文": "order",
	"商品": "product item", "在庫": "inventory stock", "顧客": "customer", "記録簿": "record",
	"グーグル": "google", "ギットハブ": "github", "ノーション": "notion",
	// added from the tune split's misses (general words the list above lacked)
	"最適化": "optimize optimization", "センチメント": "sentiment", "感情": "sentiment emotion", "学習": "learning learn",
	"学生": "student", "成績": "grade", "ポジション": "position", "カード": "card", "ボード": "board", "顔": "face",
	"名言": "quote", "引用": "quote citation", "過去": "historical history past", "観測": "observation",
	"考え": "thought", "思考": "thought think", "カテゴリ": "category", "分類": "category classify",
	"説明": "description explain", "書式": "format", "形式": "format", "解像度": "resolution",
	"拡大": "upscale enlarge zoom", "拡張": "expand extend", "背景": "background", "ポスター": "poster",
}

// jaWeight scales the English words a Japanese word stands for.
const jaWeight = 0.8

type glossEntry struct {
	ja    string
	terms []string
}

// glossaryTermsJA is the glossary in a fixed order with its English side
// made into terms.
var glossaryTermsJA = sync.OnceValue(func() []glossEntry {
	out := make([]glossEntry, 0, len(glossaryJA))
	for ja, en := range glossaryJA {
		out = append(out, glossEntry{ja, Terms(en)})
	}
	slices.SortFunc(out, func(a, b glossEntry) int { return strings.Compare(a.ja, b.ja) })
	return out
})

// japaneseTerms returns the English terms the Japanese words in text stand
// for, each with the Japanese word it came from.
func japaneseTerms(text string) [][2]string {
	if !hasCJK(text) {
		return nil
	}
	var out [][2]string
	for _, g := range glossaryTermsJA() {
		if strings.Contains(text, g.ja) {
			for _, t := range g.terms {
				out = append(out, [2]string{t, g.ja})
			}
		}
	}
	return out
}

func hasCJK(s string) bool {
	for _, r := range s {
		if r >= 0x3000 && isCJK(r) {
			return true
		}
	}
	return false
}
