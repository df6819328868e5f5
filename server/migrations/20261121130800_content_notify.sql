-- The information screens and e-mail: help items per language (content served by GET cdb/help/list),
-- contact and franchise leads (POST /crmLeads/add/public), and the order receipts sent by e-mail.

create table help_items (
  id bigserial primary key,
  lang text not null,                            -- en-US, zh-CN, lt-LT, pt-PT, es-ES
  position integer not null,
  title text not null,                           -- pTitle
  content text not null,                         -- pContent
  unique (lang, position)
);

create table crm_leads (
  id bigserial primary key,
  name text not null,
  email text not null,
  mobile text not null,
  nation text not null,
  content text not null default '',
  source text not null,
  lang text not null,
  created_at timestamptz not null
);

create table order_receipts (
  id bigserial primary key,
  order_id text not null references orders(id),
  user_id bigint not null references users(id),
  email text not null,
  message_id text not null,
  sent_at timestamptz not null
);
create index order_receipts_order on order_receipts (order_id, sent_at desc);

insert into help_items (lang, position, title, content) values
  ('en-US', 1, 'How do I rent a power bank?', 'Scan the QR code on the cabinet, check the price, pay the deposit or use your wallet, and take the power bank from the slot that lights up.'),
  ('en-US', 2, 'How do I return it?', 'Push the power bank into any free slot of any Powerly cabinet until it clicks. The rental ends automatically and the fee is charged for the time used.'),
  ('en-US', 3, 'How is the rent calculated?', 'The first minutes are free; after that you pay per time unit, never more than the daily cap for each 24 hours. The exact price is shown before you rent.'),
  ('en-US', 4, 'When do I get my deposit back?', 'The deposit or pre-authorisation is released as soon as the power bank is returned. A refund to a card can take 1 to 5 business days.'),
  ('en-US', 5, 'What if I do not return it?', 'When the rent reaches the deposit amount, the deposit is kept and the power bank is yours; you do not need to return it.'),
  ('zh-CN', 1, '如何租借充电宝？', '扫描机柜上的二维码，查看价格，支付押金或使用钱包余额，然后从亮灯的仓口取出充电宝。'),
  ('zh-CN', 2, '如何归还？', '将充电宝推入任意 Powerly 机柜的空仓口，听到咔嗒声即可。订单自动结束，按实际使用时间计费。'),
  ('zh-CN', 3, '租金如何计算？', '前几分钟免费，之后按时间单位计费，每 24 小时不超过每日封顶价。租借前会显示具体价格。'),
  ('zh-CN', 4, '押金何时退还？', '归还充电宝后押金或预授权立即释放。退回银行卡可能需要 1 到 5 个工作日。'),
  ('zh-CN', 5, '如果不归还会怎样？', '当租金达到押金金额时，押金将被扣除，充电宝归您所有，无需再归还。'),
  ('lt-LT', 1, 'Kaip išsinuomoti išorinę bateriją?', 'Nuskaitykite QR kodą ant spintelės, patikrinkite kainą, sumokėkite užstatą arba naudokite piniginę ir paimkite bateriją iš užsidegusio lizdo.'),
  ('lt-LT', 2, 'Kaip ją grąžinti?', 'Įstumkite bateriją į bet kurį laisvą bet kurios Powerly spintelės lizdą, kol spragtelės. Nuoma baigiasi automatiškai, mokestis skaičiuojamas už naudojimo laiką.'),
  ('lt-LT', 3, 'Kaip skaičiuojamas nuomos mokestis?', 'Pirmosios minutės nemokamos, vėliau mokate už laiko vienetą, bet ne daugiau nei dienos riba už kiekvienas 24 valandas. Tiksli kaina rodoma prieš nuomą.'),
  ('lt-LT', 4, 'Kada atgausiu užstatą?', 'Užstatas arba išankstinis autorizavimas atlaisvinamas iškart grąžinus bateriją. Grąžinimas į kortelę gali užtrukti nuo 1 iki 5 darbo dienų.'),
  ('lt-LT', 5, 'Kas bus, jei negrąžinsiu?', 'Kai nuomos mokestis pasiekia užstato sumą, užstatas pasiliekamas ir baterija tampa jūsų; jos grąžinti nebereikia.'),
  ('pt-PT', 1, 'Como alugo um power bank?', 'Leia o código QR do armário, confira o preço, pague a caução ou use a carteira e retire o power bank da ranhura que acender.'),
  ('pt-PT', 2, 'Como o devolvo?', 'Empurre o power bank para qualquer ranhura livre de qualquer armário Powerly até ouvir um clique. O aluguer termina automaticamente e paga apenas o tempo usado.'),
  ('pt-PT', 3, 'Como é calculado o aluguer?', 'Os primeiros minutos são grátis; depois paga por unidade de tempo, nunca mais do que o limite diário por cada 24 horas. O preço exato é mostrado antes de alugar.'),
  ('pt-PT', 4, 'Quando recebo a caução de volta?', 'A caução ou pré-autorização é libertada assim que o power bank é devolvido. Um reembolso no cartão pode demorar de 1 a 5 dias úteis.'),
  ('pt-PT', 5, 'E se não o devolver?', 'Quando o aluguer atinge o valor da caução, a caução é retida e o power bank passa a ser seu; não precisa de o devolver.'),
  ('es-ES', 1, '¿Cómo alquilo una batería externa?', 'Escanea el código QR del armario, revisa el precio, paga el depósito o usa tu monedero y saca la batería de la ranura que se ilumine.'),
  ('es-ES', 2, '¿Cómo la devuelvo?', 'Introduce la batería en cualquier ranura libre de cualquier armario Powerly hasta oír un clic. El alquiler termina automáticamente y pagas solo el tiempo usado.'),
  ('es-ES', 3, '¿Cómo se calcula el alquiler?', 'Los primeros minutos son gratis; después pagas por unidad de tiempo, nunca más que el tope diario por cada 24 horas. El precio exacto se muestra antes de alquilar.'),
  ('es-ES', 4, '¿Cuándo recupero el depósito?', 'El depósito o la preautorización se libera en cuanto devuelves la batería. Un reembolso a la tarjeta puede tardar de 1 a 5 días hábiles.'),
  ('es-ES', 5, '¿Y si no la devuelvo?', 'Cuando el alquiler alcanza el importe del depósito, el depósito se retiene y la batería es tuya; ya no tienes que devolverla.');
