package verifier

import "strings"

// Chinese: clause conjunctions, numerals and the Chinese half of the
// lexicon. Chinese has no spaces, so words are found by longest match
// against the lexicon; an unknown ideograph is a word of its own.

// zhConjunctions split clauses. The "but" kind splits whenever the right
// side is a clause; the "and" kind only between two clauses, so 商品 A 和
// 商品 B 都有货 stays whole.
var zhConjunctions = []struct {
	s   string
	but bool
}{
	{"但是", true}, {"而且", true}, {"并且", true}, {"不过", true}, {"然而", true},
	{"可是", true}, {"同时", true}, {"另外", true}, {"此外", true},
	{"以及", false}, {"和", false}, {"及", false}, {"并", false},
}

// zhConjunctionAt reports a conjunction starting at r[i] and where it ends.
func zhConjunctionAt(r []rune, i, e int) (end int, but, ok bool) {
	for _, c := range zhConjunctions {
		n := len([]rune(c.s))
		if i+n <= e && string(r[i:i+n]) == c.s {
			// 并 is a conjunction only before a verb-like word ("并将", "并已").
			if c.s == "并" && (i+1 >= e || !strings.ContainsRune("且将已会可于在", r[i+1])) {
				continue
			}
			if c.s == "和" && i+1 < e && strings.ContainsRune("平", r[i+1]) {
				continue
			}
			return i + n, c.but, true
		}
	}
	return 0, false, false
}

// zhPredicateRunes mark a Chinese clause (a verb or a predicate).
const zhPredicateRunes = "有是为已会将可能要送发到剩卖售价重需含包提供支显示预计达购订退晴阴雨雪降升涨跌减增超低高贵便免缺"

const zhNumerals = "零〇一二两三四五六七八九十百千万亿"

func zhNumeralRune(c rune) bool { return strings.ContainsRune(zhNumerals, c) }

// zhMeasureRune reports a measure word or unit that may follow a numeral.
func zhMeasureRune(c rune) bool {
	return strings.ContainsRune("件个天台箱份双套瓶包盒张本支位人间晚次只辆元块小分周年斤克米度单笔条家款种名倍折成", c)
}

// parseZhNumber parses a Chinese numeral at r[i] (二十五, 两, 一百零五,
// 三千). It returns the value and the end of the numeral.
func parseZhNumber(r []rune, i int) (float64, int, bool) {
	var total, section, num float64
	j := i
	seen := false
	for ; j < len(r); j++ {
		c := r[j]
		if d := strings.IndexRune("零一二三四五六七八九", c); d >= 0 {
			num = float64(len([]rune("零一二三四五六七八九"[:d])))
			seen = true
			continue
		}
		switch c {
		case '〇':
			num = 0
		case '两':
			num = 2
		case '十', '百', '千':
			m := map[rune]float64{'十': 10, '百': 100, '千': 1000}[c]
			if num == 0 {
				num = 1
			}
			section += num * m
			num = 0
		case '万', '亿':
			if !seen && section == 0 {
				return 0, i, false
			}
			m := map[rune]float64{'万': 1e4, '亿': 1e8}[c]
			total += (section + num) * m
			section, num = 0, 0
		default:
			if j == i {
				return 0, i, false
			}
			return total + section + num, j, true
		}
		seen = true
	}
	if j == i {
		return 0, i, false
	}
	return total + section + num, j, true
}

// zhLexicon: concept = words. A word may name several concepts.
var zhLexicon = []string{
	"stock=库存 存货 现货 有货 可用 剩 剩余 余量 数量 可售 在库 件数 余票 还剩 仅剩 只剩 可用库存 缺货 无货 售罄 断货 没货 有票 卖完 卖光 已售完 售完 有号 余号 号源 约满 挂满 满号 订满 已满",
	"price=价格 价钱 售价 单价 费用 价 收费 花费 定价 房价 票价 费 金额 元 块 贵 便宜 钱 运费 邮费 手续费 最便宜 最贵 更便宜 更贵 押金 定金 附加费",
	"original=原价 原 原来",
	"current=现价 现",
	"subtotal=小计",
	"total=总 总计 合计 一共 共计 总共 总额 总价 总金额 共",
	"discount=折扣 优惠 打折 减 折 促销 降价",
	"weight=重 重量 重达 净重 毛重 轻 斤",
	"temperature=温度 气温 温 高温 低温 热 冷 暖 凉 最高气温 最低气温 最高温 最低温",
	"high=最高 高温 最高温 最高气温 高",
	"low=最低 低温 最低温 最低气温 低",
	"humidity=湿度",
	"wind=风 风速 风力",
	"chance=概率 几率 可能性 降水概率 降雨概率 降水 机率",
	"uv=紫外线",
	"index=指数",
	"alert=预警 警告 预警信号",
	"delivery=送达 送到 到货 到达 签收 配送 送货 抵达 收到 派送 送 到",
	"ship=发货 发出 寄出 出库 运输 运送 发 寄",
	"shipping=运费 邮费 快递费 配送费 包邮 免运费",
	"carrier=快递公司 承运 承运商 物流公司 快递 物流",
	"order=订单 下单 购买 订购",
	"refund=退款 退货 退 可退 退换 退还 退款金额",
	"rating=评分 分数 星级 评级 星 分 得分 平均分 成绩",
	"average=平均 平均分 均值 均价 人均",
	"review=评价 评论",
	"distance=距离 远 公里",
	"duration=时长 耗时 用时 时间 需要 最快 最慢 更快 更慢 快 慢",
	"booking=预订 预约 订房 订票 预定",
	"room=房间 客房 房",
	"guest=客人 人数 入住人数 成人 乘客 旅客",
	"night=晚 夜",
	"seat=座位 座 票",
	"flight=航班 班机",
	"depart=出发 起飞 离开 发车",
	"checkin=入住",
	"checkout=退房 离店",
	"breakfast=早餐 含早 早饭",
	"warranty=保修 质保",
	"color=颜色 色",
	"size=尺寸 尺码 大小",
	"battery=电池 续航",
	"location=位于 地址 仓库 门店 城市 所在地",
	"status=状态",
	"created=下单时间 创建",
	"payment=支付 付款 已付 付",
	"open=营业 开放 开门 关闭 封闭",
	"cancel=取消 退订 可取消",
	"installment=分期 期",
	"tax=税 税费",
	"revenue=收入 营收 销售额",
	"sales=销量 销售",
	"growth=增长 增加 上涨 提高 上升 涨",
	"member=会员",
	"speed=速度 速率 吞吐",
	"ratio=率 比例 比率 占比 好评率",
	"surcharge=附加费 附加 加价",
	"employee=员工 职工 雇员 人员",
	"item=商品 产品 物品 货品 货",
}

// zhCues: cue = words.
var zhCues = []string{
	"neg=不 没 没有 无 未 非 别 尚未 还没 还没有 还未 并非 不是 不会 不能 不可 不再 无法 勿 否",
	"neglex=缺货 无货 售罄 断货 卖完 卖光 已售完 售完 没货 关闭 封闭 约满 挂满 满号 订满 已满",
	// Words that contain a negation character but do not negate.
	"plain=非常 无线 不错 不过 未来 无论 不仅 不同 不少 没问题 不客气 不用谢 无限 不久 不但 无缝 不断 不锈钢 无理由 无忧 人均 均价",
	"approx=约 大约 大概 将近 接近 近 左右 差不多 上下 约为 大致",
	"universal=全部 所有 都 均 一律 皆 全都 统统",
	"except=除了 除",
	"existential=部分 有些 一些 某些 有的",
	"exclusive=只 只有 仅 仅有 唯一 只在",
	"always=总是 一直 永远 始终 从不 从来 每次 随时 永不",
	"certain=一定 肯定 保证 确保 必定 绝对 必然 准时 务必 百分之百 必须 确定",
	"derive=一共 合计 总共 总计 差 相差 增加 减少 增长 下降 提高 降低 倍 平均 节省 多出 少了 共计 总 共 一起 加起来 省 便宜",
	"more=多 更多 高于 多于 大于 超过 贵 更贵 高 更高 大 热 暖 长 远 慢 更慢",
	"less=少 更少 低于 少于 小于 不到 不足 便宜 更便宜 低 更低 小 冷 凉 短 近 轻",
	"most=最多 最高 最大 最贵 最重 最热 最长 最远 最晚 最慢",
	"least=最少 最低 最小 最便宜 最轻 最冷 最短 最近 最早 最快",
	"than=比 相比 比起",
	"gt=超过 多于 大于 高于 突破 涨破 升破 站上",
	"ge=至少 不少于 不低于 起",
	"lt=少于 小于 低于 不到 不足 跌破 跌穿 跌下",
	"le=不超过 不多于 最多 以内 之内 内 以下",
	"after_ge=以上",
	"nonassert=您好 你好 谢谢 感谢 不客气 请问 如需 如果需要 如有 请随时 欢迎 祝 希望 建议 推荐 我觉得 我认为 可以考虑 需要我 我可以 帮您 为您 有什么 还有什么 吗 呢 很高兴 乐意 抱歉 不好意思 请 您可以 你可以 以下是 如下 哈哈",
	"hedge=预计 预估 估计 可能 预测 预期 大概 有望 暂定",
	"up=上升 增长 增加 提高 上涨 提升 回升 涨",
	"down=下降 减少 降低 下跌 回落 下滑 跌",
	"free=免费 包邮 免运费 免息",
	"pronoun=它 它们 其 该 这 这个 那个 此 该商品 该订单 这件 这款",
	"stop=正在 的 了 着 过 是 在 与 及 也 就 还 又 会 将 已 已经 目前 现在 当前 我们 您 你 您的 你的 我 他 她 那 个 为 对 于 从 把 被 让 给 向 以 其中 可以 可 能 要 有 呢 吧 啊 哦 呀 嗯 再 根据 查询 结果 显示 信息 情况 如下 以下 这边 系统 为您查询 查到 当前 仍 仍然 还有 只是 即 就是 会在 将在 而 则 来 去 上 中 后 前 里 内 外 之 得 地 些 位 号 日 月 年 时 点",
}
