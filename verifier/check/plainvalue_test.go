package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestANameGivenAsPlainTextIsJudged: a place, name or other categorical
// value the claim states as plain text, which the evidence nowhere holds,
// is contradicted by the one string field in scope its words bind it to
// (the field's key concept, or a place after in/at/在 beside the one
// location field), and unsupported when several fields may be meant.
func TestANameGivenAsPlainTextIsJudged(t *testing.T) {
	train := `{"train": "M-2290", "status": "HELD", "held_at": "Galesburg", "delay_min": 450}`
	depot := `{"warehouse": {"id": "W-3", "city": "Marseille", "capacity": 1200}}`
	film := `{"film": {"title": "Summer Rain", "director": "Chen Yu", "runtime_min": 104}}`
	route := `{"parcel": {"id": "P-9", "origin_city": "Lyon", "destination_city": "Paris"}}`
	zh := `{"影片": {"片名": "猫的夏天", "导演": "陈宇", "时长_分钟": 104}}`
	zhCard := `{"卡号": "T-2231", "余额_元": 35.5, "最后刷卡站点": "春熙路"}`
	wantVerdicts(t, []verdictCase{
		{train, "It is held at Peoria.", events.VerdictContradicted},
		{train, "It is held at Galesburg.", events.VerdictSupported},
		{depot, "Warehouse W-3 is located in Lyon.", events.VerdictContradicted},
		{depot, "Warehouse W-3 is located in Marseille.", events.VerdictSupported},
		{film, "The director is Li Wei.", events.VerdictContradicted},
		{film, "The director is Chen Yu.", events.VerdictSupported},
		// negation and modality are read first: they say nothing of what is
		{train, "It may be held at Peoria.", events.VerdictUnsupported},
		// two fields the name may be of
		{route, "Parcel P-9 is in Marseille.", events.VerdictUnsupported},
		{zh, "导演是李伟。", events.VerdictContradicted},
		{zh, "导演是陈宇。", events.VerdictSupported},
		{zhCard, "最后一次刷卡是在天府广场。", events.VerdictContradicted},
		// Chinese words of English keys' concepts (lexicon.txt)
		{`{"film": "猫的夏天", "director": "陈若溪", "runtime_min": 104}`, "导演是陈若曦。", events.VerdictContradicted},
		{`{"film": "猫的夏天", "director": "陈若溪", "runtime_min": 104}`, "导演是陈若溪。", events.VerdictSupported},
		{`{"student": "王浩然", "hours_used": 16, "coach": "李师傅"}`, "教练是张师傅。", events.VerdictContradicted},
		{`{"student": "王浩然", "hours_used": 16, "coach": "李师傅"}`, "教练是李师傅。", events.VerdictSupported},
	})
}
